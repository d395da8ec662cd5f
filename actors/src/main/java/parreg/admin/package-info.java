/**
 * What an operator sees: {@link parreg.admin.AdminActor} answers state queries by asking the
 * training, GPU and peer actors; {@link parreg.admin.AdminHttpServer} serves them with the health
 * routes of {@link parreg.admin.NodeHealth} and the metrics; {@link parreg.admin.ClusterStatus}
 * gathers every member's status over the cluster transport.
 *
 * <p>May depend on every node package but {@code parreg.node}; its HTTP server is {@link
 * parreg.net.HttpEndpoint}.
 */
package parreg.admin;
