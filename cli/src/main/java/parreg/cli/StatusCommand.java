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
 * status endpoint (the cluster port + {@code parreg.admin.port-offset} unless {@code
 * --admin-port}), which answers in milliseconds. With {@code --cluster}, that node's {@code
 * /cluster/status}: every participant's status, which the node gathers over the cluster transport
 * ({@link ClusterTable}).
 */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = "Ask a node's admin actor for its state.")
public final class StatusCommand implements Callable<Integer> {

  @Option(
      names = "--node",
      required = true,
      description = "HOST:PORT of the node (its cluster port)")
  String node;

  @Option(
      names = "--admin-port",
      description = "the node's HTTP status port (default: PORT + parreg.admin.port-offset, 10000)")
  Integer adminPort;

  @Option(names = "--json", description = "print the raw JSON")
  boolean json;

  @Option(
      names = "--cluster",
      description =
          "one row per participant, gathered through this one node (it asks every member's admin actor)")
  boolean cluster;

  @Option(
      names = "--watch",
      arity = "0..1",
      fallbackValue = "2",
      paramLabel = "SECONDS",
      description =
          "with --cluster: redraw the table in place every SECONDS (default 2) until Ctrl-C")
  Double watch;

  @Option(
      names = "--timeout-ms",
      defaultValue = "5000",
      description = "give up after this long (default: ${DEFAULT-VALUE})")
  long timeoutMs;

  /** Fields every parreg status has; an answer without them comes from something else. */
  static final java.util.List<String> REQUIRED =
      java.util.List.of(
          "participant", "committedStep", "state", "weightBits", "contract", "contractDigest");

  @Override
  public Integer call() throws Exception {
    int colon = node.lastIndexOf(':');
    String host = colon > 0 ? node.substring(0, colon) : "";
    String portText = colon > 0 ? node.substring(colon + 1) : "";
    if (host.isEmpty() || !host.matches("[A-Za-z0-9.\\-]+") || !portText.matches("\\d{1,5}")) {
      throw new UserError("--node '" + node + "' is not HOST:PORT");
    }
    int port = Integer.parseInt(portText);
    if (port < 1 || port > 65535) {
      throw new UserError("--node " + node + ": " + port + " is not a TCP port");
    }
    int offset = adminPort != null ? 0 : defaultPortOffset();
    int admin = adminPort != null ? adminPort : port + offset;
    if (admin < 1 || admin > 65535) {
      throw new UserError(
          "the node's admin port "
              + admin
              + " is not a TCP port"
              + (adminPort != null ? "" : " (PORT + " + offset + "); give --admin-port"));
    }
    if (watch != null && (!cluster || json)) {
      throw new UserError("--watch goes with --cluster, without --json");
    }
    if (watch != null && !(watch >= 0.1 && watch <= 3600)) {
      throw new UserError("--watch " + watch + ": give the seconds between refreshes, 0.1 to 3600");
    }
    URI uri =
        URI.create("http://" + host + ":" + admin + (cluster ? "/cluster/status" : "/status"));
    Answer answer;
    try {
      answer = get(uri, Duration.ofMillis(timeoutMs));
    } catch (java.net.UnknownHostException e) {
      throw new UserError("--node " + node + ": unknown host " + host);
    } catch (ConnectException e) {
      System.err.println(
          "parreg: no parreg node answers at " + node + " (" + uri + ": connection refused)");
      return Main.RUNTIME;
    } catch (IOException e) {
      System.err.println(
          "parreg: no answer from the node at "
              + node
              + " ("
              + uri
              + ": "
              + FileErrors.reason(e)
              + ")");
      return Main.RUNTIME;
    }
    if (cluster) {
      return cluster(answer, uri);
    }
    JsonNode status = parregStatus(answer);
    if (status == null) {
      // Something answers on that port, but not a parreg node: a wrong address is bad input.
      throw new UserError(
          "what answers at "
              + uri
              + " is not a parreg node (HTTP "
              + answer.code()
              + ", "
              + describe(answer.body())
              + "); check --node and --admin-port");
    }
    if (answer.code() != 200) {
      System.err.println(
          "parreg: the node at "
              + node
              + " could not answer (HTTP "
              + answer.code()
              + ": "
              + status.path("error").asText()
              + ")");
      return Main.RUNTIME;
    }
    if (json) {
      System.out.println(answer.body());
      return 0;
    }
    System.out.print(summary(status));
    return 0;
  }

  /** {@code --cluster}: the table (or JSON, or the watch) from the node's answer. */
  private int cluster(Answer answer, URI uri) throws IOException {
    JsonNode doc = ClusterTable.parse(answer);
    if (doc == null) {
      if (answer.code() == 503 && parregStatus(answer) != null) {
        System.err.println(
            "parreg: the node at "
                + node
                + " could not gather the cluster's status (HTTP 503: "
                + parregStatus(answer).path("error").asText()
                + ")");
        return Main.RUNTIME;
      }
      throw new UserError(
          "what answers at "
              + uri
              + " is not a parreg node (HTTP "
              + answer.code()
              + ", "
              + describe(answer.body())
              + "); check --node and --admin-port");
    }
    if (watch != null) {
      return ClusterTable.watch(() -> get(uri, Duration.ofMillis(timeoutMs)), node, watch);
    }
    if (json) {
      System.out.println(answer.body());
    } else {
      ClusterTable.rows(doc).forEach(System.out::println);
    }
    return 0;
  }

  /** A status code and body. */
  record Answer(int code, String body) {}

  /**
   * The node's default offset of its HTTP port from its cluster port, from the same parreg.conf the
   * node reads (only that file: loading every jar's defaults would cost this short-lived process a
   * few hundred milliseconds).
   */
  static int defaultPortOffset() {
    return com.typesafe.config.ConfigFactory.parseResources("parreg.conf")
        .getInt("parreg.admin.port-offset");
  }

  /**
   * The answer as a parreg status: a JSON object with every {@link #REQUIRED} field (HTTP 200), or
   * the node's own error object (HTTP 503, {@code {"error": ...}}); null for anything else.
   */
  static JsonNode parregStatus(Answer a) {
    JsonNode n;
    try {
      n = new ObjectMapper().readTree(a.body());
    } catch (IOException e) {
      return null;
    }
    if (n == null || !n.isObject()) {
      return null;
    }
    if (a.code() == 503 && n.size() == 1 && n.path("error").isTextual()) {
      return n;
    }
    if (a.code() != 200 || !REQUIRED.stream().allMatch(n::hasNonNull)) {
      return null;
    }
    return n;
  }

  private static String describe(String body) {
    String t = body.strip().replaceAll("\\s+", " ");
    if (t.isEmpty()) {
      return "an empty body";
    }
    return "'" + (t.length() > 60 ? t.substring(0, 60) + "..." : t) + "'";
  }

  /**
   * One GET, any status code. Plain {@link java.net.HttpURLConnection} rather than {@code
   * java.net.http.HttpClient}: a status call is a fresh JVM, and the lighter client starts about
   * half a second sooner here.
   */
  static Answer get(URI uri, Duration timeout) throws IOException {
    java.net.HttpURLConnection c = (java.net.HttpURLConnection) uri.toURL().openConnection();
    c.setConnectTimeout((int) timeout.toMillis());
    c.setReadTimeout((int) timeout.toMillis());
    try {
      int code = c.getResponseCode();
      java.io.InputStream in = code < 400 ? c.getInputStream() : c.getErrorStream();
      String body =
          in == null ? "" : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      return new Answer(code, body);
    } finally {
      c.disconnect();
    }
  }

  /** The body of a 200 answer, else an IOException (for callers that only want a status). */
  static String fetch(URI uri, Duration timeout) throws IOException, InterruptedException {
    Answer a = get(uri, timeout);
    if (a.code() != 200) {
      throw new IOException("HTTP " + a.code() + ": " + a.body());
    }
    return a.body();
  }

  /** The human summary; absent fields print empty rather than fail (an older or newer node). */
  static String summary(JsonNode s) {
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            "participant %d at %s  state %s  step %d/%d (durable %d)  epoch %d  batches %d%n",
            s.path("participant").asInt(),
            s.path("address").asText("?"),
            s.path("state").asText(),
            s.path("committedStep").asLong(),
            s.path("targetSteps").asLong(),
            s.path("durableStep").asLong(),
            s.path("epoch").asLong(),
            s.path("batches").asLong()));
    b.append("weights ")
        .append(s.path("weights"))
        .append("  bits ")
        .append(s.path("weightBits"))
        .append('\n');
    b.append("loss ").append(s.path("loss")).append('\n');
    if (s.path("validationStep").isNumber()) {
      b.append(
          String.format(
              "validation RMSE %s  R2 %s  at step %d%n",
              s.path("validationRmse"),
              s.path("validationR2").isNull() ? "undefined" : s.path("validationR2"),
              s.path("validationStep").asLong()));
    }
    b.append(
        String.format(
            "started %s  %s steps/s  ETA %s%n",
            s.path("startedAt").asText("?"),
            s.path("stepsPerSecond").isNumber()
                ? String.format(java.util.Locale.ROOT, "%.1f", s.path("stepsPerSecond").asDouble())
                : "?",
            s.path("etaSeconds").isNumber()
                ? String.format(java.util.Locale.ROOT, "%.1f s", s.path("etaSeconds").asDouble())
                : "?"));
    JsonNode dev = s.path("device");
    b.append(
        String.format(
            "backend %s  device %s (%s)  launches %s issued / %s retired%n",
            s.path("backend").asText(),
            dev.path("name").asText(),
            dev.path("uuid").asText(),
            s.path("launches").path("issued"),
            s.path("launches").path("retired")));
    for (JsonNode m : s.path("members")) {
      b.append(
          String.format(
              "member %s %s%s%n",
              m.path("address").asText(),
              m.path("status").asText(),
              m.path("reachable").asBoolean() ? "" : " UNREACHABLE"));
    }
    if (s.path("membership").isTextual()) {
      b.append("membership: ").append(s.path("membership").asText()).append('\n');
    }
    for (JsonNode p : s.path("peers")) {
      b.append(
          String.format(
              "peer %d at %s: step %d, durable %d (heard %d ms ago)%n",
              p.path("participant").asInt(),
              p.path("address").asText(),
              p.path("lastKnownCommitted").asLong(),
              p.path("lastKnownDurable").asLong(),
              p.path("lastHeardMillisAgo").asLong()));
    }
    for (JsonNode r : s.path("refusedPeers")) {
      b.append("refused: ").append(r.asText()).append('\n');
    }
    if (s.path("waitingFor").size() > 0) {
      b.append("waiting for participant(s) ")
          .append(s.path("waitingFor"))
          .append(" for ")
          .append(s.path("waitingMillis").asLong())
          .append(" ms\n");
    }
    JsonNode j = s.path("journal");
    b.append(
        String.format(
            "journal %s  position %d  last snapshot %d%n",
            j.path("location").asText(),
            j.path("position").asLong(),
            j.path("lastSnapshot").asLong()));
    b.append("contract ")
        .append(s.path("contract").path("runName").asText())
        .append(" ")
        .append(
            s.path("contractDigest").asText(),
            0,
            Math.min(16, s.path("contractDigest").asText().length()))
        .append('\n');
    return b.toString();
  }
}
