/**
 * One node from its deployment inputs to its end: {@link parreg.node.NodeConfig} (flags and
 * configuration, checked before anything is written), {@link parreg.node.NodeStart} (device,
 * journal and actor system started in the order that leaves nothing behind when refused), {@link
 * parreg.node.ParregNode} (the actors wired, the HTTP endpoint served), {@link
 * parreg.node.RunOutcome} (how an incarnation ends) and {@link parreg.node.Incarnations} (a removed
 * incarnation replaced in the same process, or the process ended).
 *
 * <p>The top of the node: may depend on every other package of {@code actors/}; none depends on it.
 */
package parreg.node;
