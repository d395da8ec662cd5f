package parreg.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code parreg status --node HOST:PORT [--json]}: asks the node's admin actor through its HTTP
 * status endpoint (the cluster port + {@code parreg.admin.port-offset} unless {@code --admin-port}),
 * which answers in milliseconds.
 */
@Command(name = "status", mixinStandardHelpOptions = true, description = "Ask a node's admin actor for its state.")
public final class StatusCommand implements Callable<Integer> {

  @Option(names = "--node", required = true, description = "HOST:PORT of the node (its cluster port)")
  String node;

  @Option(names = "--admin-port", description = "the node's HTTP status port (default: PORT + parreg.admin.port-offset, 10000)")
  Integer adminPort;

  @Option(names = "--json", description = "print the raw JSON")
  boolean json;

  @Option(names = "--timeout-ms", defaultValue = "5000", description = "give up after this long (default: ${DEFAULT-VALUE})")
  long timeoutMs;

  @Override
  public Integer call() throws Exception {
    String[] hp = node.split(":");
    if (hp.length != 2 || !hp[1].matches("\\d{1,5}")) {
      throw new UserError("--node '" + node + "' is not HOST:PORT");
    }
    int admin = adminPort != null ? adminPort : Integer.parseInt(hp[1]) + defaultPortOffset();
    URI uri = URI.create("http://" + hp[0] + ":" + admin + "/status");
    String body;
    try {
      body = fetch(uri, Duration.ofMillis(timeoutMs));
    } catch (ConnectException e) {
      System.err.println("parreg: no parreg node answers at " + node + " (" + uri + ": connection refused)");
      return 1;
    } catch (IOException e) {
      System.err.println("parreg: no answer from the node at " + node + " (" + uri + ": " + e + ")");
      return 1;
    }
    if (json) {
      System.out.println(body);
      return 0;
    }
    System.out.print(summary(new ObjectMapper().readTree(body)));
    return 0;
  }

  /**
   * The node's default offset of its HTTP port from its cluster port, from the same parreg.conf
   * the node reads (only that file: loading every jar's defaults would cost this short-lived
   * process a few hundred milliseconds).
   */
  static int defaultPortOffset() {
    return com.typesafe.config.ConfigFactory.parseResources("parreg.conf").getInt("parreg.admin.port-offset");
  }

  /**
   * One GET. Plain {@link java.net.HttpURLConnection} rather than {@code java.net.http.HttpClient}:
   * a status call is a fresh JVM, and the lighter client starts about half a second sooner here.
   */
  static String fetch(URI uri, Duration timeout) throws IOException, InterruptedException {
    java.net.HttpURLConnection c = (java.net.HttpURLConnection) uri.toURL().openConnection();
    c.setConnectTimeout((int) timeout.toMillis());
    c.setReadTimeout((int) timeout.toMillis());
    try {
      int code = c.getResponseCode();
      java.io.InputStream in = code == 200 ? c.getInputStream() : c.getErrorStream();
      String body = in == null ? "" : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      if (code != 200) {
        throw new IOException("HTTP " + code + ": " + body);
      }
      return body;
    } finally {
      c.disconnect();
    }
  }

  static String summary(JsonNode s) {
    StringBuilder b = new StringBuilder();
    b.append(String.format("participant %d at %s  state %s  step %d/%d  epoch %d  batches %d%n",
        s.get("participant").asInt(), s.path("address").asText("?"), s.get("state").asText(), s.get("committedStep").asLong(), s.get("targetSteps").asLong(),
        s.get("epoch").asLong(), s.get("batches").asLong()));
    b.append("weights ").append(s.get("weights")).append("  bits ").append(s.get("weightBits")).append('\n');
    b.append("loss ").append(s.get("loss")).append('\n');
    JsonNode dev = s.get("device");
    b.append(String.format("backend %s  device %s (%s)  launches %s issued / %s retired%n",
        s.get("backend").asText(), dev.get("name").asText(), dev.get("uuid").asText(),
        s.get("launches").get("issued"), s.get("launches").get("retired")));
    for (JsonNode m : s.get("members")) {
      b.append(String.format("member %s %s%s%n", m.get("address").asText(), m.get("status").asText(),
          m.get("reachable").asBoolean() ? "" : " UNREACHABLE"));
    }
    for (JsonNode p : s.get("peers")) {
      b.append(String.format("peer %d at %s: step %d (heard %d ms ago)%n", p.get("participant").asInt(),
          p.get("address").asText(), p.get("lastKnownCommitted").asLong(), p.get("lastHeardMillisAgo").asLong()));
    }
    if (s.get("waitingFor").size() > 0) {
      b.append("waiting for participant(s) ").append(s.get("waitingFor")).append(" for ")
          .append(s.get("waitingMillis").asLong()).append(" ms\n");
    }
    JsonNode j = s.get("journal");
    b.append(String.format("journal %s  position %d  last snapshot %d%n", j.get("location").asText(),
        j.get("position").asLong(), j.get("lastSnapshot").asLong()));
    b.append("contract ").append(s.get("contract").get("runName").asText()).append(" ")
        .append(s.get("contractDigest").asText(), 0, 16).append('\n');
    return b.toString();
  }
}
