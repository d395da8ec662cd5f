package parreg.cluster;

import java.nio.file.Files;
import parreg.settings.BadInput;
import parreg.settings.Deployment;
import parreg.settings.Hocon;

/**
 * A node's cluster transport over TLS ({@code --tls-keystore}, {@code --tls-truststore}, {@code
 * --tls-password-file}): the flags and the password checked, both stores opened, and Artery's TLS
 * settings written into the node's flag overlay ({@code parreg.node.NodeConfig#parse}). Bad input
 * is {@link BadInput}, refused before anything is written.
 */
public final class ArteryTls {
  private ArteryTls() {}

  /**
   * Artery over TLS with mutual authentication when a keystore and truststore are given: a peer is
   * admitted only with a certificate the cluster CA signed, and bytes from anyone else never reach
   * Artery's framing stage. Host names are not verified (the CA is the trust). The stores are
   * opened here, so a wrong password or file is refused before anything is written. The password
   * never appears on a command line: a file, or {@code PARREG_TLS_PASSWORD}. Appends the settings
   * to {@code overlay}; false (nothing appended) when no store is given.
   */
  public static boolean configure(Deployment d, StringBuilder overlay) {
    if (d.tlsKeystore() == null && d.tlsTruststore() == null) {
      if (d.tlsPasswordFile() != null) {
        throw new BadInput("--tls-password-file needs --tls-keystore and --tls-truststore");
      }
      return false;
    }
    if (d.tlsKeystore() == null || d.tlsTruststore() == null) {
      throw new BadInput("TLS needs both --tls-keystore and --tls-truststore");
    }
    char[] password = tlsPassword(d);
    checkStore("--tls-keystore", d.tlsKeystore(), password, true);
    checkStore("--tls-truststore", d.tlsTruststore(), password, false);
    String pw = Hocon.quote(new String(password));
    String engine = "pekko.remote.artery.ssl.config-ssl-engine.";
    overlay
        .append("pekko.remote.artery.transport = tls-tcp\n")
        // Pekko's provider, with a trust manager that logs a refused node's certificate
        .append("pekko.remote.artery.ssl.ssl-engine-provider = ")
        .append(RefusalLoggingSslEngineProvider.class.getName())
        .append('\n')
        .append(engine)
        .append("key-store = ")
        .append(Hocon.quote(d.tlsKeystore().toAbsolutePath().toString()))
        .append('\n')
        .append(engine)
        .append("trust-store = ")
        .append(Hocon.quote(d.tlsTruststore().toAbsolutePath().toString()))
        .append('\n')
        .append(engine)
        .append("key-store-password = ")
        .append(pw)
        .append('\n')
        .append(engine)
        .append("key-password = ")
        .append(pw)
        .append('\n')
        .append(engine)
        .append("trust-store-password = ")
        .append(pw)
        .append('\n')
        .append(engine)
        .append("require-mutual-authentication = on\n")
        .append(engine)
        .append("hostname-verification = off\n");
    return true;
  }

  private static char[] tlsPassword(Deployment d) {
    String value;
    String where;
    if (d.tlsPasswordFile() != null) {
      where = "--tls-password-file " + d.tlsPasswordFile();
      try {
        value = Files.readAllLines(d.tlsPasswordFile()).stream().findFirst().orElse("").strip();
      } catch (java.io.IOException e) {
        throw new BadInput(where + ": cannot read it (" + e.getMessage() + ")");
      }
    } else {
      where = "PARREG_TLS_PASSWORD";
      value = System.getenv("PARREG_TLS_PASSWORD");
      if (value == null) {
        throw new BadInput(
            "TLS needs the stores' password: --tls-password-file FILE or the environment variable "
                + "PARREG_TLS_PASSWORD (never on the command line)");
      }
    }
    if (value.isEmpty()) {
      throw new BadInput(where + ": the password is empty");
    }
    return value.toCharArray();
  }

  private static void checkStore(
      String flag, java.nio.file.Path file, char[] password, boolean needsKey) {
    if (!Files.isRegularFile(file)) {
      throw new BadInput(flag + " " + file + ": no such file");
    }
    java.security.KeyStore ks;
    try (var in = Files.newInputStream(file)) {
      ks = java.security.KeyStore.getInstance("PKCS12");
      ks.load(in, password);
    } catch (java.io.IOException | java.security.GeneralSecurityException e) {
      throw new BadInput(
          flag + " " + file + ": not a PKCS12 store this password opens (" + e.getMessage() + ")");
    }
    try {
      boolean hasKey = false;
      boolean hasCert = false;
      for (var aliases = ks.aliases(); aliases.hasMoreElements(); ) {
        String a = aliases.nextElement();
        hasKey |= ks.isKeyEntry(a);
        hasCert |= ks.isCertificateEntry(a);
      }
      if (needsKey && !hasKey) {
        throw new BadInput(
            flag + " " + file + ": holds no private key (give the node's keystore, node-P.p12)");
      }
      if (!needsKey && !hasCert) {
        throw new BadInput(
            flag + " " + file + ": holds no trusted certificate (give truststore.p12)");
      }
    } catch (java.security.KeyStoreException e) {
      throw new BadInput(flag + " " + file + ": " + e.getMessage());
    }
  }
}
