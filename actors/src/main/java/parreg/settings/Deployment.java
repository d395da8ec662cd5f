package parreg.settings;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What a node is started with, as given on the command line.
 *
 * @param participant this node's id
 * @param participants how many there are (to know when everyone is done)
 * @param host the address peers reach this node by (Artery's canonical hostname), or null for the
 *     configured one
 * @param bindHost the address the cluster port listens on, or null for {@code host}
 * @param port cluster port
 * @param adminHost the HTTP endpoint's address, or null for {@code parreg.admin.host}
 * @param adminPort HTTP port, or null for port + {@code parreg.admin.port-offset}
 * @param seedNodes HOST:PORT of the seed nodes
 * @param insecure allow plain TCP on a non-loopback address
 * @param tlsKeystore PKCS12 keystore with this node's key and certificate chain, or null for plain
 *     TCP
 * @param tlsTruststore PKCS12 truststore with the cluster CA, or null
 * @param tlsPasswordFile file whose first line is the stores' password, or null for the environment
 *     variable {@code PARREG_TLS_PASSWORD}
 * @param journal directory (embedded H2) or JDBC URL
 * @param journalPasswordFile file whose first line is a PostgreSQL journal's password, or null
 * @param configFile HOCON overlay, or null
 * @param steps target step
 * @param backend auto, cpu or cuda
 * @param device card UUID or ordinal
 * @param evidence evidence file to create when done, or null
 * @param exitWhenDone exit once the target step is durable in every participant's journal
 * @param syncCommit write each step to the journal before the next starts (no journal lag)
 * @param stepInterval pacing, or null for {@code parreg.step-interval}
 * @param runNameGiven whether the run name was given ({@code --run-name}): a journal of another run
 *     then admits this one as a new run ({@link parreg.persistence.JournalRuns#admit})
 */
public record Deployment(
    int participant,
    int participants,
    String host,
    String bindHost,
    int port,
    String adminHost,
    Integer adminPort,
    List<String> seedNodes,
    boolean insecure,
    Path tlsKeystore,
    Path tlsTruststore,
    Path tlsPasswordFile,
    String journal,
    Path journalPasswordFile,
    Path configFile,
    long steps,
    String backend,
    String device,
    Path evidence,
    boolean exitWhenDone,
    boolean syncCommit,
    Duration stepInterval,
    boolean runNameGiven) {}
