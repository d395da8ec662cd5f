package parreg.cluster;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.Member;

/**
 * What this node knows of the membership changes that hold a run up: the members it is downing or
 * has downed ({@link UnreachableDowning}), and whether this incarnation itself was removed from the
 * cluster ({@link SelfRemoval}). A removed incarnation can never take part again (its peers have
 * quarantined it), so the node replaces it with a new one or exits (parreg.node). One per actor
 * system: written by the downing actors, read by the status and by the node's main thread.
 */
public final class Membership implements Extension {
  private static final ExtensionId<Membership> ID =
      new ExtensionId<>() {
        @Override
        public Membership createExtension(ActorSystem<?> system) {
          return new Membership();
        }
      };

  /**
   * What a node removed from the cluster does: {@code rejoin} with a new incarnation in its process
   * (the default), or {@code exit} with code 4 (parreg.node.Incarnations).
   */
  public static final String ON_REMOVAL = "parreg.cluster.on-removal";

  /** Why this incarnation is no longer a member, in words. */
  public record Removal(String reason) {}

  /** The key of this node's own line. */
  private static final String SELF = "";

  private final CompletableFuture<Removal> removed = new CompletableFuture<>();
  private final Map<String, String> lines = new LinkedHashMap<>();
  private volatile String rejoin;

  private Membership() {}

  public static Membership get(ActorSystem<?> system) {
    return system.registerExtension(ID);
  }

  static Membership get(org.apache.pekko.actor.ActorSystem classic) {
    return get(Adapter.toTyped(classic));
  }

  /** Completes once this incarnation has been removed from the cluster (never otherwise). */
  public CompletableFuture<Removal> removed() {
    return removed;
  }

  /** Marks this incarnation removed; false when it already was. */
  boolean remove(String reason, String next) {
    if (!removed.complete(new Removal(reason))) {
      return false;
    }
    line(SELF, "removed from the cluster at " + now() + ": " + reason + "; " + next);
    return true;
  }

  /**
   * This incarnation replaces one that was removed ({@code why}); {@code count} incarnations were
   * removed so far. Its status says so until it is Up, and then that it rejoined.
   */
  public void rejoining(int count, String why) {
    rejoin = "(rejoin " + count + ") after the incarnation before it was removed: " + why;
    line(SELF, "rejoining the cluster with a new incarnation " + rejoin);
  }

  /** This incarnation, a rejoin, is Up: the line that says so, or null when it is no rejoin. */
  String rejoined() {
    String r = rejoin;
    if (r == null) {
      return null;
    }
    line(SELF, "rejoined the cluster at " + now() + " " + r);
    return r;
  }

  synchronized void line(String key, String text) {
    lines.put(key, text);
  }

  synchronized void clear(String key) {
    lines.remove(key);
  }

  /**
   * What is going on with membership, in one line (members being downed or downed and waited for,
   * this node removed or rejoining), or null when nothing is.
   */
  public synchronized String line() {
    return lines.isEmpty() ? null : String.join("; ", lines.values());
  }

  /** A member as the lines name it: its address and, when it has one, its participant id. */
  static String describe(Member m) {
    OptionalInt p = ParticipantClaims.participantOf(m);
    return m.address() + (p.isPresent() ? " (participant " + p.getAsInt() + ")" : "");
  }

  /** A duration as people write it: "10 s", "2.5 s", "300 ms". */
  static String words(Duration d) {
    long ms = d.toMillis();
    return ms < 1000 ? ms + " ms" : (ms % 1000 == 0 ? ms / 1000 + " s" : ms / 1000.0 + " s");
  }

  static String now() {
    return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
