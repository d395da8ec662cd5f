/**
 * Cluster membership: how a node joins ({@link parreg.cluster.ClusterJoin}), its transport over TLS
 * ({@link parreg.cluster.ArteryTls}, {@link parreg.cluster.RefusalLoggingSslEngineProvider}) or
 * plain TCP behind the framing guard ({@link parreg.cluster.FramingGuard}, which passes on only
 * well-framed Artery bytes: {@link parreg.cluster.FrameCheck}, {@link parreg.cluster.GuardedLink}),
 * which members are downed ({@link parreg.cluster.UnreachableDowning}), whether this node itself
 * was removed ({@link parreg.cluster.SelfRemoval}) and what is going on with membership in one line
 * ({@link parreg.cluster.Membership}), and which live member holds a participant id ({@link
 * parreg.cluster.ParticipantClaims}).
 *
 * <p>May depend on {@code parreg.settings}, {@code parreg.net} and Pekko Cluster; knows nothing of
 * training, exchange or the device.
 */
package parreg.cluster;
