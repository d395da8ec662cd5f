/**
 * The peer actor (SPEC section 3): {@link parreg.exchange.PeerActor} exchanges contributions with
 * the other participants and hands the training actor the full set of a step; its helpers hold its
 * other roles: {@link parreg.exchange.PeerRoster} (handshake and admission), {@link
 * parreg.exchange.ContributionWindow} (the sets by step) and {@link parreg.exchange.StepServer}
 * (committed steps for a peer catching up, from memory or the journal).
 *
 * <p>May depend on {@code parreg.protocol}, {@code parreg.cluster}, {@code parreg.settings}, {@code
 * parreg.metrics}, {@code parreg.device} and {@code parreg.persistence}.
 */
package parreg.exchange;
