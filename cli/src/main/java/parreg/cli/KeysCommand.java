package parreg.cli;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code parreg keys --out DIR --nodes N}: a cluster CA and one key pair per node, for {@code
 * parreg node --tls-keystore DIR/node-P.p12 --tls-truststore DIR/truststore.p12 --tls-password-file
 * DIR/password}.
 */
@Command(
    name = "keys",
    mixinStandardHelpOptions = true,
    description = "Make a cluster CA and one TLS key pair per node (PKCS12 keystores).")
public final class KeysCommand implements Callable<Integer> {

  @Option(
      names = "--out",
      required = true,
      description = "directory to create them in (new, or empty)")
  Path out;

  @Option(
      names = "--nodes",
      required = true,
      description = "number of nodes (node-0.p12 .. node-(N-1).p12)")
  int nodes;

  @Option(
      names = "--hosts",
      split = ",",
      description = "per node, the host name or address to name in its certificate (optional)")
  List<String> hosts;

  @Option(
      names = "--password-file",
      description =
          "protect the keystores with this file's password (default: a random one, written to DIR/password)")
  Path passwordFile;

  @Override
  public Integer call() throws Exception {
    if (nodes < 1 || nodes > 1000) {
      throw new UserError("--nodes must be between 1 and 1000");
    }
    List<String> h = hosts == null ? List.of() : hosts;
    if (h.size() > nodes) {
      throw new UserError("--hosts names " + h.size() + " nodes, --nodes is " + nodes);
    }
    char[] password;
    if (passwordFile != null) {
      password = readPassword(passwordFile, "--password-file");
    } else {
      password = ClusterKeys.randomPassword();
    }
    if (Files.exists(out) && (!Files.isDirectory(out) || Files.list(out).findAny().isPresent())) {
      throw new UserError(
          "--out " + out + " exists and is not an empty directory; keys are never overwritten");
    }
    if (Files.isSymbolicLink(out) && !Files.exists(out)) {
      throw new UserError(
          "--out "
              + out
              + " is a symbolic link to "
              + Files.readSymbolicLink(out)
              + ", which does not exist; name a new directory or the link's target");
    }
    try {
      Files.createDirectories(out);
    } catch (java.io.IOException e) {
      throw FileErrors.userError("--out " + out + ": cannot create the directory", e);
    }
    if (passwordFile == null) {
      Path pw = out.resolve("password");
      Files.createFile(
          pw, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.writeString(
          pw, new String(password) + "\n", StandardCharsets.UTF_8, StandardOpenOption.WRITE);
    }
    ClusterKeys.write(out, nodes, password, h);
    List<String> made = new ArrayList<>(ClusterKeys.files(nodes));
    if (passwordFile != null) {
      made.remove("password");
    }
    System.out.println("parreg keys: wrote " + String.join(", ", made) + " in " + out);
    System.out.println(
        "  node P needs node-P.p12, truststore.p12 and the password; keep ca.p12 off the nodes");
    return 0;
  }

  /** The first line of a password file (trailing newline and spaces removed). */
  static char[] readPassword(Path file, String what) throws java.io.IOException {
    if (!Files.isRegularFile(file)) {
      throw new UserError(what + " " + file + ": no such file");
    }
    String first =
        Files.readAllLines(file, StandardCharsets.UTF_8).stream().findFirst().orElse("").strip();
    if (first.isEmpty()) {
      throw new UserError(what + " " + file + ": empty");
    }
    return first.toCharArray();
  }
}
