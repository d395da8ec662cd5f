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
 * <p>CSV is read through {@link parreg.device.data.CsvRecords} (FastCSV, RFC 4180), the one reader
 * of every command: {@link parreg.device.data.CsvRows} applies a column layout ({@link
 * parreg.device.data.CsvLayout}) and a {@link parreg.device.data.CsvDialect} to its records, and
 * {@link parreg.device.data.Decimals} turns a cell into binary32 or, for a run of precision f64,
 * binary64 ({@code PartitionFiles.load(..., Precision)}: a partition of {@code double[]} columns).
 * A {@code .prb} file holds binary32 (version 1) or binary64 (version 2) values; {@link
 * parreg.device.data.RowSink64} streams rows in binary64.
 *
 * <p>Plain Java: depends on {@code parreg.device}, the JDK and FastCSV ({@code de.siegmar.fastcsv},
 * no dependencies of its own) only (no Pekko, no persistence, no actors).
 */
package parreg.device.data;
