package parreg.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A cluster's TLS material: a CA, and per node a key pair with a certificate the CA signed, as
 * PKCS12 keystores for Artery's {@code tls-tcp} (mutual authentication: a node is admitted because
 * the cluster CA signed its certificate; host names are not checked, so a certificate is not tied
 * to an address). EC P-256 keys, SHA-256 signatures; the JDK does the cryptography, Bouncy Castle
 * only writes the certificates.
 */
final class ClusterKeys {
  static final String CA_ALIAS = "parreg-cluster-ca";
  static final Duration VALIDITY = Duration.ofDays(825);

  private ClusterKeys() {}

  /** The file names {@link #write} creates in its directory. */
  static List<String> files(int nodes) {
    List<String> f = new ArrayList<>(List.of("ca.p12", "truststore.p12", "password"));
    for (int p = 0; p < nodes; p++) {
      f.add("node-" + p + ".p12");
    }
    return f;
  }

  /**
   * Writes ca.p12 (the CA's key: keep it offline), truststore.p12 (the CA's certificate, for every
   * node), node-P.p12 (node P's key and certificate chain) and, unless a password is given,
   * password (random; readable by the owner only). Every file is created new.
   *
   * @param hosts per node the names/addresses to put in its certificate (informational), or empty
   */
  static void write(Path dir, int nodes, char[] password, List<String> hosts)
      throws IOException, GeneralSecurityException, OperatorCreationException {
    SecureRandom random = new SecureRandom();
    Instant now = Instant.now();
    KeyPair caKeys = keyPair(random);
    X500Name caName = new X500Name("CN=parreg cluster CA " + Long.toHexString(random.nextLong()));
    X509v3CertificateBuilder ca =
        new JcaX509v3CertificateBuilder(
            caName,
            serial(random),
            Date.from(now.minus(Duration.ofMinutes(5))),
            Date.from(now.plus(VALIDITY)),
            caName,
            caKeys.getPublic());
    JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
    ca.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
    ca.addExtension(
        Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    ca.addExtension(
        Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(caKeys.getPublic()));
    X509Certificate caCert = sign(ca, caKeys);

    KeyStore caStore = emptyStore();
    caStore.setKeyEntry(CA_ALIAS, caKeys.getPrivate(), password, new Certificate[] {caCert});
    store(caStore, dir.resolve("ca.p12"), password);
    KeyStore trust = emptyStore();
    trust.setCertificateEntry(CA_ALIAS, caCert);
    store(trust, dir.resolve("truststore.p12"), password);

    for (int p = 0; p < nodes; p++) {
      KeyPair nodeKeys = keyPair(random);
      X500Name name = new X500Name("CN=parreg node " + p);
      X509v3CertificateBuilder b =
          new JcaX509v3CertificateBuilder(
              caCert,
              serial(random),
              Date.from(now.minus(Duration.ofMinutes(5))),
              Date.from(now.plus(VALIDITY)),
              name,
              nodeKeys.getPublic());
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      b.addExtension(
          Extension.keyUsage,
          true,
          new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement));
      // both: a node accepts connections (server) and opens them (client)
      b.addExtension(
          Extension.extendedKeyUsage,
          false,
          new ExtendedKeyUsage(
              new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
      b.addExtension(
          Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(caCert));
      if (p < hosts.size()) {
        String h = hosts.get(p);
        boolean ip = h.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        b.addExtension(
            Extension.subjectAlternativeName,
            false,
            new GeneralNames(new GeneralName(ip ? GeneralName.iPAddress : GeneralName.dNSName, h)));
      }
      X509Certificate cert = sign(b, caKeys);
      KeyStore ks = emptyStore();
      ks.setKeyEntry(
          "parreg-node-" + p, nodeKeys.getPrivate(), password, new Certificate[] {cert, caCert});
      store(ks, dir.resolve("node-" + p + ".p12"), password);
    }
  }

  static char[] randomPassword() {
    byte[] b = new byte[24];
    new SecureRandom().nextBytes(b);
    return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(b).toCharArray();
  }

  private static KeyPair keyPair(SecureRandom random) throws GeneralSecurityException {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"), random);
    return g.generateKeyPair();
  }

  private static BigInteger serial(SecureRandom random) {
    return new BigInteger(126, random).add(BigInteger.ONE);
  }

  private static X509Certificate sign(X509v3CertificateBuilder b, KeyPair signer)
      throws OperatorCreationException, GeneralSecurityException {
    return new JcaX509CertificateConverter()
        .getCertificate(
            b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate())));
  }

  private static KeyStore emptyStore() throws GeneralSecurityException, IOException {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    return ks;
  }

  private static void store(KeyStore ks, Path file, char[] password)
      throws IOException, GeneralSecurityException {
    // owner-only: all but the truststore hold a private key
    Files.createFile(
        file,
        java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
            java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
    try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.WRITE)) {
      ks.store(out, password);
    }
  }
}
