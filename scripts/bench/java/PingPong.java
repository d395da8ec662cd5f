// Artery TCP ping-pong floor between two JVMs (scripts/bench/floors.sh): round-trip time of a small
// message, with Pekko's default dispatchers or (any 5th argument) everything on one thread.
// usage: java -cp "target/parreg.jar:target/lib/*" scripts/bench/java/PingPong.java server PORT x x [one]
//        java -cp "target/parreg.jar:target/lib/*" scripts/bench/java/PingPong.java client PORT PEERPORT N [one]
import org.apache.pekko.actor.*;
import com.typesafe.config.*;
public class PingPong {
  static class Echo extends AbstractActor {
    public Receive createReceive() { return receiveBuilder().matchAny(m -> getSender().tell(m, getSelf())).build(); }
  }
  static class Pinger extends AbstractActor {
    final ActorSelection peer; final int n; int i; long t0; long[] rtt;
    Pinger(ActorSelection peer, int n) { this.peer = peer; this.n = n; rtt = new long[n]; }
    public void preStart() { t0 = System.nanoTime(); peer.tell(Long.valueOf(0), getSelf()); }
    public Receive createReceive() { return receiveBuilder().match(Long.class, m -> {
      long now = System.nanoTime(); rtt[i] = now - t0; i++;
      if (i == n) { java.util.Arrays.sort(rtt, n/5, n); System.out.printf("round trips %d (after %d warm-up): median %.0f us, p90 %.0f us%n", n - n/5, n/5, rtt[n/5 + (n - n/5)/2]/1e3, rtt[n/5 + (int)((n - n/5)*0.9)]/1e3); getContext().getSystem().terminate(); return; }
      t0 = System.nanoTime(); getSender().tell(Long.valueOf(i), getSelf()); }).build(); }
  }
  public static void main(String[] a) throws Exception {
    boolean one = a.length > 4;
    String cfg = "pekko.actor.provider = remote\npekko.remote.artery.canonical.hostname = 127.0.0.1\npekko.remote.artery.canonical.port = " + a[1] + "\npekko.actor.allow-java-serialization = on\npekko.actor.warn-about-java-serializer-usage = off\npekko.loglevel = WARNING\npekko.remote.artery.advanced.inbound-lanes = 1\n"
      + (one ? "pekko.actor.default-dispatcher.fork-join-executor { parallelism-min = 1, parallelism-max = 1 }\npekko.actor.internal-dispatcher = \"pekko.actor.default-dispatcher\"\npekko.remote.artery.advanced.use-dispatcher = \"pekko.actor.default-dispatcher\"\npekko.remote.artery.advanced.use-control-stream-dispatcher = \"pekko.actor.default-dispatcher\"\n" : "");
    ActorSystem sys = ActorSystem.create("pp", ConfigFactory.parseString(cfg).withFallback(ConfigFactory.load()));
    if (a[0].equals("server")) { sys.actorOf(Props.create(Echo.class), "echo"); }
    else { int n = Integer.parseInt(a[3]); ActorSelection peer = sys.actorSelection("pekko://pp@127.0.0.1:" + a[2] + "/user/echo");
      sys.actorOf(Props.create(Pinger.class, peer, n), "pinger"); sys.getWhenTerminated().toCompletableFuture().get(); System.exit(0); }
  }
}
