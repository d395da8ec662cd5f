/**
 * What every concern of a node is started with and how it ends the node: {@link
 * parreg.settings.NodeSettings} (deployment inputs plus the {@code parreg} configuration namespace,
 * read once at start-up) and {@link parreg.settings.NodeLifecycle} (an exit code and a one-line
 * reason, handed to the node's main thread).
 *
 * <p>May depend on {@code parreg.device} and {@code parreg.persistence}; every other node package
 * may depend on it.
 */
package parreg.settings;
