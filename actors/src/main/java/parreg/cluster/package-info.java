/**
 * Cluster membership: how a node joins ({@link parreg.cluster.ClusterJoin}), its transport over TLS
 * ({@link parreg.cluster.ArteryTls}, {@link parreg.cluster.RefusalLoggingSslEngineProvider}), which
 * members are downed ({@link parreg.cluster.UnreachableDowning}), whether this node itself was
 * removed ({@link parreg.cluster.SelfRemoval}) and what is going on with membership in one line
 * ({@link parreg.cluster.Membership}), and which live member holds a participant id ({@link
 * parreg.cluster.ParticipantClaims}).
 *
 * <p>May depend on {@code parreg.settings} and Pekko Cluster; knows nothing of training, exchange
 * or the device.
 */
package parreg.cluster;
