package parreg.exchange;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Contributions larger than one Artery frame, sent as {@link PeerActor.ContributionPart}s and put
 * back together on arrival.
 *
 * <p>The exact solver's contribution is the partition's statistics: {@code (d + 2)(d + 3) / 2}
 * double-double entries, 8.4 MB at d = 1,024 and 134 MB at d = 4,096, and a served step carries
 * every participant's. Artery drops a message above {@code maximum-frame-size} (4 MiB here) with
 * nothing but a log line, and the peer waiting for it would ask again for ever. So a contribution
 * whose encoding is larger than {@code parreg.peer.part-bytes} goes as numbered parts of that size
 * over the ordinary stream (in order between two nodes, but any may be lost, as any message), each
 * with a transfer id; the receiver decodes the contribution once every part of one transfer has
 * arrived. A lost part costs a new transfer: the receiver asks again only once a transfer has made
 * no progress for {@link #STALLED_NANOS}, and the sender does not answer a request for the same
 * step from the same peer for {@link #RESEND_NANOS} after a transfer, so that requests already in
 * flight when a transfer starts do not send the same hundred megabytes twice.
 *
 * <p>Not thread-safe: the peer actor owns it.
 */
final class ContributionParts {
  /** A transfer with no part arriving for this long is given up on and asked for again. */
  static final long STALLED_NANOS = 2_000_000_000L;

  /** After a transfer to a peer, its requests for the same step are not answered for this long. */
  static final long RESEND_NANOS = 3_000_000_000L;

  /** Assemblies of a step this far behind the newest one heard are dropped. */
  private static final int KEEP_STEPS = 2;

  private final int partBytes;
  private final Function<PeerActor.Contribution, byte[]> encode;
  private final Function<byte[], PeerActor.Contribution> decode;
  private final Map<Key, Assembly> assemblies = new HashMap<>();
  private final Map<ActorRef<?>, Sent> lastSent = new HashMap<>();

  private record Key(int sender, long transfer) {}

  private record Sent(long step, long atNanos) {}

  /** One transfer being received. */
  private static final class Assembly {
    final long step;
    final byte[][] parts;
    int received;
    long heardAt;

    Assembly(long step, int count) {
      this.step = step;
      this.parts = new byte[count][];
    }
  }

  /**
   * @param partBytes the largest part (and the largest contribution sent whole)
   * @param encode the contribution as the wire carries it (the serializer's bytes)
   * @param decode back from those bytes
   */
  ContributionParts(
      int partBytes,
      Function<PeerActor.Contribution, byte[]> encode,
      Function<byte[], PeerActor.Contribution> decode) {
    if (partBytes < 1) {
      throw new IllegalArgumentException("parreg.peer.part-bytes must be at least 1");
    }
    this.partBytes = partBytes;
    this.encode = encode;
    this.decode = decode;
  }

  /**
   * The messages that carry {@code c}: itself when it is small (an estimate from its sums' length
   * decides without encoding), else its parts.
   */
  List<PeerActor.Command> messages(PeerActor.Contribution c) {
    if (estimatedBytes(c) <= partBytes) {
      return List.of(c);
    }
    byte[] bytes = encode.apply(c);
    if (bytes.length <= partBytes) {
      return List.of(c);
    }
    int count = (int) ((bytes.length + (long) partBytes - 1) / partBytes);
    long transfer = ThreadLocalRandom.current().nextLong();
    List<PeerActor.Command> parts = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int from = i * partBytes;
      parts.add(
          new PeerActor.ContributionPart(
              c.run(),
              c.step(),
              c.participant(),
              transfer,
              i,
              count,
              Arrays.copyOfRange(bytes, from, Math.min(bytes.length, from + partBytes))));
    }
    return parts;
  }

  /** Sends {@code c} to {@code to}, in parts when it is large. */
  void send(ActorRef<PeerActor.Command> to, PeerActor.Contribution c, long nowNanos) {
    List<PeerActor.Command> messages = messages(c);
    if (messages.size() > 1) {
      lastSent.put(to, new Sent(c.step(), nowNanos));
    }
    messages.forEach(to::tell);
  }

  /** Sends {@code c} to every peer in {@code to}, encoding it once. */
  void sendAll(Iterable<ActorRef<PeerActor.Command>> to, PeerActor.Contribution c, long nowNanos) {
    List<PeerActor.Command> messages = messages(c);
    for (ActorRef<PeerActor.Command> ref : to) {
      if (messages.size() > 1) {
        lastSent.put(ref, new Sent(c.step(), nowNanos));
      }
      messages.forEach(ref::tell);
    }
  }

  /**
   * Whether a request from {@code requester} for {@code step} comes while the answer to an earlier
   * one may still be on its way (a transfer in parts started less than {@link #RESEND_NANOS} ago).
   */
  boolean recentlySent(ActorRef<?> requester, long step, long nowNanos) {
    Sent s = lastSent.get(requester);
    return s != null && s.step() == step && nowNanos - s.atNanos() < RESEND_NANOS;
  }

  /**
   * Takes one part; returns the contribution once its transfer is complete, else null. A part of a
   * transfer of another size than its first part said is ignored.
   */
  PeerActor.Contribution receive(PeerActor.ContributionPart p, long nowNanos) {
    if (p.count() < 1 || p.index() < 0 || p.index() >= p.count()) {
      return null;
    }
    Key key = new Key(p.participant(), p.transfer());
    Assembly a = assemblies.get(key);
    if (a == null) {
      dropOlderThan(p.step() - KEEP_STEPS);
      a = new Assembly(p.step(), p.count());
      assemblies.put(key, a);
    }
    if (a.parts.length != p.count() || a.step != p.step()) {
      return null;
    }
    a.heardAt = nowNanos;
    if (a.parts[p.index()] == null) {
      a.parts[p.index()] = p.bytes();
      a.received++;
    }
    if (a.received < a.parts.length) {
      return null;
    }
    assemblies.remove(key);
    int length = 0;
    for (byte[] part : a.parts) {
      length += part.length;
    }
    byte[] bytes = new byte[length];
    int at = 0;
    for (byte[] part : a.parts) {
      System.arraycopy(part, 0, bytes, at, part.length);
      at += part.length;
    }
    return decode.apply(bytes);
  }

  /**
   * Whether a transfer of {@code step} from {@code participant} is arriving: a part of it came less
   * than {@link #STALLED_NANOS} ago. While it is, the step is not asked for again.
   */
  boolean arriving(int participant, long step, long nowNanos) {
    for (Map.Entry<Key, Assembly> e : assemblies.entrySet()) {
      Assembly a = e.getValue();
      if (e.getKey().sender() == participant
          && a.step == step
          && nowNanos - a.heardAt < STALLED_NANOS) {
        return true;
      }
    }
    return false;
  }

  /**
   * Drops the assemblies of steps up to {@code step} (committed here: nothing more to wait for).
   */
  void dropUpTo(long step) {
    dropOlderThan(step + 1);
  }

  private void dropOlderThan(long step) {
    for (Iterator<Assembly> it = assemblies.values().iterator(); it.hasNext(); ) {
      if (it.next().step < step) {
        it.remove();
      }
    }
  }

  /** Transfers being received (for tests and status). */
  int assembling() {
    return assemblies.size();
  }

  /** A lower bound of the encoded size: the sums' doubles alone. */
  private static long estimatedBytes(PeerActor.Contribution c) {
    long doubles = c.sums() == null ? 0 : c.sums().gradient().length;
    if (c.committedSet() != null) {
      for (var s : c.committedSet()) {
        doubles += s == null ? 0 : s.gradient().length;
      }
    }
    return doubles * Double.BYTES;
  }
}
