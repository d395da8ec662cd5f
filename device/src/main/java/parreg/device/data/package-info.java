/**
 * Partition files (SPEC section 5): the CSV reader and writer, the binary columnar format {@code
 * .prb} ({@link parreg.device.data.BinaryPartitionFormat}), {@link
 * parreg.device.data.PartitionFiles} which picks one by magic and extension, the synthetic {@link
 * parreg.device.data.DatasetGenerator}, and {@link parreg.device.data.AtomicFiles} (write to a
 * temporary name, flush, link into place without ever overwriting, flush the directory).
 *
 * <p>Every reader gives a {@link parreg.device.Partition} whose digest depends on the rows only, so
 * the same rows in CSV and in binary are the same partition. Bad input is a checked {@link
 * parreg.device.data.DataFormatException} naming the file and the line or byte offset.
 *
 * <p>Plain Java: depends on {@code parreg.device} and the JDK only (no Pekko, no persistence, no
 * actors).
 */
package parreg.device.data;
