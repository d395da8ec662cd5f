package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real full disk (issue 13 item 8): a node whose H2 journal lies on a 600 KB tmpfs ends with one
 * line naming the step it could not write, exit 1. The tmpfs is mounted in a private mount
 * namespace of an unprivileged user namespace ({@code unshare -rm}), so no root is needed; where
 * the machine allows no user namespaces the test is skipped ({@code JournalErrorsTest} covers the
 * recognition of the failure everywhere).
 */
@Tag("multiprocess")
class DiskFullTest {
  @TempDir Path dir;

  static boolean userNamespaces() {
    try {
      Process p =
          new ProcessBuilder("unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /tmp")
              .start();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (Exception e) {
      return false;
    }
  }

  @Test
  void aFullDiskEndsTheNodeWithOneLineNamingTheStep() throws Exception {
    fillsUp("", List.of(), Long.MAX_VALUE);
  }

  /**
   * {@code --sync-commit}: the step log (on a 16 KB tmpfs of its own, so that it fills first) is
   * where a step is acknowledged; a full disk there ends the node the same way.
   */
  @Test
  void aFullDiskUnderTheStepLogEndsTheNodeTheSameWay() throws Exception {
    fillsUp(
        " && mkdir -p \"$0/j/journal.steplog\""
            + " && mount -t tmpfs -o size=16k tmpfs \"$0/j/journal.steplog\"",
        List.of("--sync-commit"),
        1000);
  }

  /**
   * The default mode: the step log guards each journal write (appended just before it); a full disk
   * there ends the node the same way, the journal ending at its last acknowledged step (here often
   * step 0: a fast run's first group of steps, ~100 bytes each, does not fit 16 KB).
   */
  @Test
  void aFullDiskUnderTheGuardingStepLogEndsTheNodeTheSameWay() throws Exception {
    fillsUp(
        " && mkdir -p \"$0/j/journal.steplog\""
            + " && mount -t tmpfs -o size=16k tmpfs \"$0/j/journal.steplog\"",
        List.of(),
        1000);
  }

  private void fillsUp(String mountMore, List<String> extra, long maxStep) throws Exception {
    assumeTrue(
        userNamespaces(),
        "unshare -rm (unprivileged user and mount namespaces) is not available here");
    Path data = Files.writeString(dir.resolve("a.csv"), "x1,y\n1,2\n2,4\n");
    Path small = Files.createDirectories(dir.resolve("small"));
    List<String> nodeArgs =
        new ArrayList<>(List.of("--learning-rate", "1/1024", "--backend", "cpu"));
    nodeArgs.addAll(extra);
    List<String> args =
        SoloNode.args(
            data.toString(),
            small.resolve("j").toString(),
            "100000000",
            nodeArgs.toArray(String[]::new));
    List<String> cmd = onSmallTmpfs(small, "600k", mountMore, args);
    Path log = dir.resolve("node.log");
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      assertTrue(p.waitFor(150, TimeUnit.SECONDS), "the node ended");
      String out = Files.readString(log);
      assertEquals(1, p.exitValue(), out);
      Matcher m =
          Pattern.compile(
                  "parreg: error: journal disk full at step (\\d+): H2 \\S+ \\(no space left on device\\); "
                      + "the journal ends at step (\\d+): free space and restart the node to resume\n")
              .matcher(out);
      assertTrue(m.find(), out.substring(Math.max(0, out.length() - 2000)));
      assertEquals(Long.parseLong(m.group(1)) - 1, Long.parseLong(m.group(2)));
      // The 600 KB under H2 alone lasts thousands of steps here; the step log's 16 KB far fewer.
      assertTrue(
          Long.parseLong(m.group(1)) < maxStep,
          "ended at step " + m.group(1) + ": not by the disk under test");
      assertFalse(out.substring(m.start()).contains("\tat "), "the last line stands alone");
    } finally {
      p.destroyForcibly();
    }
  }

  /**
   * A disk already full when the journal is created: the same kind of one line and exit 1, and
   * nothing else. Before, the line was H2's "IO Exception: ..." (no word of a full disk), under a
   * 20-line trace: the actor system, started while the journal was created, was stopped before its
   * receptionist had started.
   */
  @Test
  void aDiskFullBeforeTheJournalIsCreatedEndsWithOneLine() throws Exception {
    assumeTrue(
        userNamespaces(),
        "unshare -rm (unprivileged user and mount namespaces) is not available here");
    Path data = Files.writeString(dir.resolve("a.csv"), "x1,y\n1,2\n2,4\n");
    Path small = Files.createDirectories(dir.resolve("small"));
    List<String> args =
        SoloNode.args(data.toString(), small.resolve("j").toString(), "100", "--backend", "cpu");
    Path log = dir.resolve("node.log");
    Process p =
        new ProcessBuilder(
                onSmallTmpfs(
                    small, "64k", " && (cat /dev/zero > \"$0/fill\" 2>/dev/null; true)", args))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      assertTrue(p.waitFor(150, TimeUnit.SECONDS), "the node ended");
      String out = Files.readString(log);
      assertEquals(1, p.exitValue(), out);
      assertTrue(
          out.endsWith(
              "parreg: error: journal disk full while creating the journal: H2 "
                  + small.resolve("j")
                  + " (no space left on device); free space and start the node again\n"),
          out);
      assertFalse(out.contains("\tat "), "no trace: " + out);
      assertFalse(out.contains("ERROR"), "no error logged besides the line: " + out);
    } finally {
      p.destroyForcibly();
    }
  }

  /**
   * The node's command line, run with {@code dir} a tmpfs of {@code size} in a private mount
   * namespace, after the shell commands {@code more} ({@code $0} is {@code dir}).
   */
  private static List<String> onSmallTmpfs(
      Path dir, String size, String more, List<String> nodeArgs) {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "unshare",
                "-rm",
                "sh",
                "-c",
                "mount -t tmpfs -o size=" + size + " tmpfs \"$0\"" + more + " && exec \"$@\"",
                dir.toString()));
    cmd.addAll(NodeProcess.command(nodeArgs));
    return cmd;
  }
}
