package parreg.cluster;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.remote.artery.tcp.ConfigSSLEngineProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pekko's Artery TLS engine provider (the stores and settings of {@code
 * pekko.remote.artery.ssl.config-ssl-engine}, ArteryTls) whose server side says in this node's log
 * when it refuses an incoming connection: one line with the reason, e.g. a node whose certificate
 * another CA signed ("Empty client certificate chain": its key manager finds no certificate for the
 * CAs this node asks for) or bytes that are not TLS. Pekko drops a failed inbound handshake without
 * a word, so without this a refused node was visible only in its own log, and an operator of the
 * cluster could not tell that someone tried to join. This node writes at most one line per reason
 * per {@link #EVERY_NANOS 10 s}, counting the refusals in between: a refused node retries several
 * connections a second for as long as it runs (LogRateLimit, which caps every logger at 2 lines a
 * second after a burst of 200, would still let that fill the log).
 */
public final class RefusalLoggingSslEngineProvider extends ConfigSSLEngineProvider {
  static final Logger LOG = LoggerFactory.getLogger(RefusalLoggingSslEngineProvider.class);
  static final long EVERY_NANOS = 10_000_000_000L;

  /**
   * Per reason (the exception's text), when its last line was written and how many refusals since.
   */
  private final Map<String, long[]> lines = new HashMap<>();

  public RefusalLoggingSslEngineProvider(ActorSystem system) {
    super(system);
  }

  @Override
  public SSLEngine createServerSSLEngine(String hostname, int port) {
    return new RefusalLogging(
        super.createServerSSLEngine(hostname, port), hostname + ":" + port, this);
  }

  /**
   * Writes the refusal line unless one with the same reason was written in the last 10 s (then it
   * is counted for the next). Reasons are few (the JDK's handshake failures); past 64 they share
   * one.
   */
  void refused(String listening, SSLException e) {
    long more;
    synchronized (lines) {
      long now = System.nanoTime();
      String reason = lines.size() < 64 ? String.valueOf(e.getMessage()) : "";
      long[] last = lines.computeIfAbsent(reason, k -> new long[] {now - EVERY_NANOS, 0});
      if (now - last[0] < EVERY_NANOS) {
        last[1]++;
        return;
      }
      more = last[1];
      last[0] = now;
      last[1] = 0;
    }
    LOG.warn(
        refusal(listening, e)
            + (more > 0 ? " (and " + more + " more like it since the last such line)" : ""));
  }

  /** The refusal line. */
  static String refusal(String listening, SSLException e) {
    return "refused a TLS connection to the cluster port "
        + listening
        + " (a node without a certificate this cluster's CA "
        + "signed, or not speaking TLS): "
        + e.getClass().getSimpleName()
        + ": "
        + e.getMessage();
  }

  /**
   * Delegates everything to Pekko's engine; logs the exception that ends a handshake as it passes.
   */
  private static final class RefusalLogging extends SSLEngine {
    private final SSLEngine d;
    private final String listening;
    private final RefusalLoggingSslEngineProvider provider;
    private boolean logged;

    RefusalLogging(SSLEngine d, String listening, RefusalLoggingSslEngineProvider provider) {
      super(d.getPeerHost(), d.getPeerPort());
      this.d = d;
      this.listening = listening;
      this.provider = provider;
    }

    private SSLException logged(SSLException e) {
      if (!logged
          && !d.getSession().isValid()) { // once per connection, and only before it is established
        logged = true;
        provider.refused(listening, e);
      }
      return e;
    }

    @Override
    public SSLEngineResult wrap(ByteBuffer[] srcs, int offset, int length, ByteBuffer dst)
        throws SSLException {
      try {
        return d.wrap(srcs, offset, length, dst);
      } catch (SSLException e) {
        throw logged(e);
      }
    }

    @Override
    public SSLEngineResult unwrap(ByteBuffer src, ByteBuffer[] dsts, int offset, int length)
        throws SSLException {
      try {
        return d.unwrap(src, dsts, offset, length);
      } catch (SSLException e) {
        throw logged(e);
      }
    }

    @Override
    public Runnable getDelegatedTask() {
      return d.getDelegatedTask();
    }

    @Override
    public void closeInbound() throws SSLException {
      d.closeInbound();
    }

    @Override
    public boolean isInboundDone() {
      return d.isInboundDone();
    }

    @Override
    public void closeOutbound() {
      d.closeOutbound();
    }

    @Override
    public boolean isOutboundDone() {
      return d.isOutboundDone();
    }

    @Override
    public String[] getSupportedCipherSuites() {
      return d.getSupportedCipherSuites();
    }

    @Override
    public String[] getEnabledCipherSuites() {
      return d.getEnabledCipherSuites();
    }

    @Override
    public void setEnabledCipherSuites(String[] suites) {
      d.setEnabledCipherSuites(suites);
    }

    @Override
    public String[] getSupportedProtocols() {
      return d.getSupportedProtocols();
    }

    @Override
    public String[] getEnabledProtocols() {
      return d.getEnabledProtocols();
    }

    @Override
    public void setEnabledProtocols(String[] protocols) {
      d.setEnabledProtocols(protocols);
    }

    @Override
    public SSLSession getSession() {
      return d.getSession();
    }

    @Override
    public SSLSession getHandshakeSession() {
      return d.getHandshakeSession();
    }

    @Override
    public void beginHandshake() throws SSLException {
      d.beginHandshake();
    }

    @Override
    public SSLEngineResult.HandshakeStatus getHandshakeStatus() {
      return d.getHandshakeStatus();
    }

    @Override
    public void setUseClientMode(boolean mode) {
      d.setUseClientMode(mode);
    }

    @Override
    public boolean getUseClientMode() {
      return d.getUseClientMode();
    }

    @Override
    public void setNeedClientAuth(boolean need) {
      d.setNeedClientAuth(need);
    }

    @Override
    public boolean getNeedClientAuth() {
      return d.getNeedClientAuth();
    }

    @Override
    public void setWantClientAuth(boolean want) {
      d.setWantClientAuth(want);
    }

    @Override
    public boolean getWantClientAuth() {
      return d.getWantClientAuth();
    }

    @Override
    public void setEnableSessionCreation(boolean flag) {
      d.setEnableSessionCreation(flag);
    }

    @Override
    public boolean getEnableSessionCreation() {
      return d.getEnableSessionCreation();
    }

    @Override
    public SSLParameters getSSLParameters() {
      return d.getSSLParameters();
    }

    @Override
    public void setSSLParameters(SSLParameters params) {
      d.setSSLParameters(params);
    }

    @Override
    public String getApplicationProtocol() {
      return d.getApplicationProtocol();
    }

    @Override
    public String getHandshakeApplicationProtocol() {
      return d.getHandshakeApplicationProtocol();
    }

    @Override
    public void setHandshakeApplicationProtocolSelector(
        BiFunction<SSLEngine, List<String>, String> selector) {
      d.setHandshakeApplicationProtocolSelector(selector);
    }

    @Override
    public BiFunction<SSLEngine, List<String>, String> getHandshakeApplicationProtocolSelector() {
      return d.getHandshakeApplicationProtocolSelector();
    }
  }
}
