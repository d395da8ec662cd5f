/**
 * The training actor (SPEC section 3): {@link parreg.training.TrainingActor} sequences each step
 * (its contribution from the GPU actor, the full set from the peer actor, the update, the commit)
 * and owns the journal child of {@code parreg.training.journal}; its helpers hold its other roles:
 * {@link parreg.training.TrainingRecovery} (the start from the journal), {@link
 * parreg.training.OwnContribution}, {@link parreg.training.RunEnd}, {@link
 * parreg.training.TrainingStatus} with {@link parreg.training.ProgressMeter}; {@link
 * parreg.training.ValidationActor} evaluates committed parameters on a hold-out file.
 *
 * <p>May depend on every node package but {@code parreg.admin} and {@code parreg.node}.
 */
package parreg.training;
