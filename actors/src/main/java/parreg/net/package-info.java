/**
 * Non-blocking network servers of a node: {@link parreg.net.NioServer} (one thread, one selector,
 * deadlines and a bounded number of connections), on which the cluster port's framing guard and
 * {@link parreg.net.HttpEndpoint} (the HTTP/1.1 server of the operator endpoint: requests read
 * without a thread, handled on workers) are built.
 *
 * <p>Depends on the JDK and SLF4J only; {@code parreg.cluster}, {@code parreg.admin} and {@code
 * parreg.node} may depend on it.
 */
package parreg.net;
