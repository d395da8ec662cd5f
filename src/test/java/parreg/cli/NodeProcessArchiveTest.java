package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Node processes use the class-data archive beside the jar only while it is newer than the jar. */
class NodeProcessArchiveTest {
  @TempDir Path dir;

  @Test
  void archiveNewerThanTheJarIsUsed() throws Exception {
    Path jar = Files.writeString(dir.resolve("parreg.jar"), "jar");
    Path jsa = Files.writeString(dir.resolve("parreg.jsa"), "jsa");
    Files.setLastModifiedTime(jar, FileTime.fromMillis(1_000_000L));
    Files.setLastModifiedTime(jsa, FileTime.fromMillis(2_000_000L));
    assertEquals(Optional.of(jsa.toAbsolutePath()), NodeProcess.classDataArchive(jar.toString()));
  }

  @Test
  void archiveOfAnOlderBuildIsNotUsed() throws Exception {
    Path jar = Files.writeString(dir.resolve("parreg.jar"), "jar");
    Path jsa = Files.writeString(dir.resolve("parreg.jsa"), "jsa");
    Files.setLastModifiedTime(jsa, FileTime.fromMillis(1_000_000L));
    Files.setLastModifiedTime(jar, FileTime.fromMillis(2_000_000L));
    assertTrue(
        NodeProcess.classDataArchive(jar.toString()).isEmpty(),
        "the JVM would refuse a stale archive with a warning");
  }

  @Test
  void noArchiveOrNoSingleJarMeansNoArchive() throws Exception {
    Path jar = Files.writeString(dir.resolve("parreg.jar"), "jar");
    assertTrue(NodeProcess.classDataArchive(jar.toString()).isEmpty(), "no archive file");
    Files.writeString(dir.resolve("parreg.jsa"), "jsa");
    assertTrue(
        NodeProcess.classDataArchive(jar + File.pathSeparator + dir.resolve("other.jar")).isEmpty(),
        "a class path of several entries (tests, IDE) is not the archived one");
    assertTrue(
        NodeProcess.classDataArchive(dir.resolve("classes").toString()).isEmpty(),
        "a class folder");
    assertTrue(NodeProcess.classDataArchive("").isEmpty());
  }
}
