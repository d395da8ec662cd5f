/**
 * What a node measures about itself: {@link parreg.metrics.NodeMetrics} (the Prometheus registry
 * behind {@code GET /metrics}), {@link parreg.metrics.StepTrace} (per-step timing points) and
 * {@link parreg.metrics.StartupTrace} (start-up milestones). Recording costs the step path nothing
 * measurable: the actors call into it, it calls no actor.
 *
 * <p>May depend on {@code parreg.settings}, Pekko Cluster (membership read at scrape time) and the
 * Prometheus client.
 */
package parreg.metrics;
