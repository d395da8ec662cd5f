/**
 * The four actors of a parreg node (SPEC section 3) and their wiring: {@link
 * parreg.actors.GpuActor} (the device, one launch at a time), {@link parreg.actors.PeerActor}
 * (exchanges contributions), {@link parreg.actors.TrainingActor} (event-sourced; its journal is the
 * checkpoint) and {@link parreg.actors.AdminActor} (state queries, also served over HTTP by {@link
 * parreg.actors.AdminHttpServer}). Each protocol is declared inside the actor that owns it; an
 * actor's other roles sit in package-private helpers it owns, named after the role (docs/
 * ARCHITECTURE.md lists them).
 *
 * <p>May depend on {@code parreg.device} and {@code parreg.persistence}.
 */
package parreg.actors;
