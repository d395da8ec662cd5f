package parreg.device.data;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * A Parquet file, or a directory of part files read as one table in name order, with the columns
 * chosen ({@link CsvColumns} by name: the label, default {@code y}, and the features, default every
 * other column) resolved in each part's schema and checked to be plain numbers: int32, int64, float
 * or double, not repeated, without a decimal, date or time annotation. Its row groups, in table
 * order, are what the reader decodes, each independently ({@link #decode}), so on as many threads
 * as there are groups.
 */
final class ParquetTable {
  /** A row group: its part file, its index there, its rows and its first row in the table. */
  record Group(int part, int index, long rows, long first) {}

  /**
   * A decoded row group: {@code values[c][r]} for chosen column c (the features in the model's
   * order, then the label where there is one) and row r; {@code missing[r]} is 1 + the first chosen
   * column holding a null in row r, 0 where none does ({@code missing} is null when no row has
   * one).
   */
  record Decoded(Group group, double[][] values, int[] missing, int nulls) {
    int rows() {
      return values[0].length;
    }
  }

  final Path source;
  final List<Path> files;
  final String[] names;
  final int features;
  final boolean label;
  final List<Group> groups;
  final long rows;
  private final List<ParquetMetadata> footers;
  private final ColumnDescriptor[][] chosen;

  private ParquetTable(
      Path source,
      List<Path> files,
      List<ParquetMetadata> footers,
      String[] names,
      int features,
      boolean label,
      ColumnDescriptor[][] chosen) {
    this.source = source;
    this.files = files;
    this.footers = footers;
    this.names = names;
    this.features = features;
    this.label = label;
    this.chosen = chosen;
    List<Group> gs = new ArrayList<>();
    long first = 0;
    for (int p = 0; p < footers.size(); p++) {
      List<BlockMetaData> blocks = footers.get(p).getBlocks();
      for (int g = 0; g < blocks.size(); g++) {
        long n = blocks.get(g).getRowCount();
        if (n > 0) {
          gs.add(new Group(p, g, n, first));
          first += n;
        }
      }
    }
    this.groups = List.copyOf(gs);
    this.rows = first;
  }

  private static final ParquetReadOptions OPTIONS = readOptions();

  private static ParquetReadOptions options() {
    return OPTIONS;
  }

  /**
   * parquet-java's defaults with {@link ParquetCodecs}, built without its builder: every builder
   * constructor makes Hadoop's codec factory first (a class that needs Hadoop's jars to load, even
   * when another factory is given next), so the options' own constructor is called, by reflection
   * (package-private in 1.18.1; ParquetWithoutHadoopTest reads a file with no Hadoop class on the
   * class path). Arguments in the order of 1.18.1's {@code Builder.build()}: signed string min/max
   * off; stats, dictionary, record and column-index filters on (no filter is set); page checksums
   * verified; bloom filters on; off-heap decryption and Hadoop vectored IO off; no record or
   * metadata filter; heap buffers; 8 MiB largest allocation; no decryption; no metrics.
   */
  private static ParquetReadOptions readOptions() {
    try {
      java.lang.reflect.Constructor<ParquetReadOptions> c =
          ParquetReadOptions.class.getDeclaredConstructor(
              boolean.class,
              boolean.class,
              boolean.class,
              boolean.class,
              boolean.class,
              boolean.class,
              boolean.class,
              boolean.class,
              boolean.class,
              org.apache.parquet.filter2.compat.FilterCompat.Filter.class,
              org.apache.parquet.format.converter.ParquetMetadataConverter.MetadataFilter.class,
              org.apache.parquet.compression.CompressionCodecFactory.class,
              org.apache.parquet.bytes.ByteBufferAllocator.class,
              int.class,
              Map.class,
              org.apache.parquet.crypto.FileDecryptionProperties.class,
              org.apache.parquet.hadoop.ParquetMetricsCallback.class,
              org.apache.parquet.conf.ParquetConfiguration.class);
      c.setAccessible(true);
      return c.newInstance(
          false,
          true,
          true,
          true,
          true,
          true,
          true,
          false,
          false,
          org.apache.parquet.filter2.compat.FilterCompat.NOOP,
          org.apache.parquet.format.converter.ParquetMetadataConverter.NO_FILTER,
          ParquetCodecs.INSTANCE,
          new org.apache.parquet.bytes.HeapByteBufferAllocator(),
          8 << 20,
          new HashMap<String, String>(),
          null,
          null,
          new PlainParquetConfiguration());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("parquet-java's read options changed: " + e, e);
    }
  }

  /**
   * The part files of {@code source}: itself, or a directory's {@code *.parquet} files in name
   * order (names starting with {@code .} or {@code _}, such as Spark's {@code _SUCCESS}, skipped).
   */
  static List<Path> files(Path source) throws IOException, DataFormatException {
    if (!Files.isDirectory(source)) {
      return List.of(source);
    }
    List<Path> parts;
    try (Stream<Path> s = Files.list(source)) {
      parts =
          s.filter(
                  f -> {
                    String n = f.getFileName().toString();
                    return n.endsWith(".parquet")
                        && !n.startsWith(".")
                        && !n.startsWith("_")
                        && Files.isRegularFile(f);
                  })
              .sorted()
              .toList();
    }
    if (parts.isEmpty()) {
      throw DataFormatException.inFile(
          source, "a directory read as Parquet part files, but it holds no *.parquet file");
    }
    return parts;
  }

  /**
   * Reads every part's footer and resolves the columns.
   *
   * @param expectedFeatures the d the columns must give, or 0 for any
   * @param needLabel whether the label column must exist (training, evaluation; not prediction)
   */
  static ParquetTable open(Path source, int expectedFeatures, CsvColumns choice, boolean needLabel)
      throws IOException, DataFormatException {
    if (!choice.header()) {
      throw DataFormatException.inFile(
          source,
          "Parquet columns have names: choose them with --label/--features, not --no-header");
    }
    List<Path> files = files(source);
    List<ParquetMetadata> footers = new ArrayList<>();
    ColumnDescriptor[][] chosen = new ColumnDescriptor[files.size()][];
    String[] names = null;
    int features = 0;
    boolean label = false;
    for (int p = 0; p < files.size(); p++) {
      Path file = files.get(p);
      ParquetMetadata footer = footer(file);
      footers.add(footer);
      MessageType schema = footer.getFileMetaData().getSchema();
      if (names == null) {
        List<String> all = new ArrayList<>();
        for (Type t : schema.getFields()) {
          all.add(t.getName());
        }
        String labelName = labelName(file, choice, all, needLabel);
        List<String> fs = new ArrayList<>();
        if (choice.features() != null) {
          fs.addAll(choice.features());
        } else {
          for (String n : all) {
            if (!n.equals(labelName)) {
              fs.add(n);
            }
          }
        }
        if (fs.isEmpty()) {
          throw DataFormatException.inFile(
              file, "no feature column: the file has only the label column " + labelName);
        }
        features = fs.size();
        label = labelName != null;
        if (label) {
          fs.add(labelName);
        }
        names = fs.toArray(new String[0]);
        if (expectedFeatures > 0 && features != expectedFeatures) {
          throw DataFormatException.inFile(
              file,
              "the model has "
                  + expectedFeatures
                  + " feature(s); the columns chosen are "
                  + features
                  + " ("
                  + CsvColumns.abbreviate(String.join(",", fs.subList(0, features)))
                  + ")");
        }
      }
      chosen[p] = resolve(file, schema, names);
    }
    return new ParquetTable(source, files, footers, names, features, label, chosen);
  }

  private static ParquetMetadata footer(Path file) throws IOException, DataFormatException {
    if (!Files.isRegularFile(file)) {
      if (!Files.exists(file)) {
        throw new NoSuchFileException(file.toString(), null, "no such file");
      }
      throw DataFormatException.inFile(file, "not a regular file");
    }
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file), options())) {
      return r.getFooter();
    } catch (RuntimeException | IOException e) {
      if (e instanceof NoSuchFileException n) {
        throw n;
      }
      throw DataFormatException.inFile(
          file, "not a readable Parquet file (" + e.getMessage() + ")");
    }
  }

  private static String labelName(Path file, CsvColumns choice, List<String> all, boolean needLabel)
      throws DataFormatException {
    if (choice.label() != null) {
      return choice.label();
    }
    if (all.contains("y")) {
      return "y";
    }
    if (needLabel) {
      throw DataFormatException.inFile(
          file,
          "no column 'y'; name the label column with --label (columns: "
              + CsvColumns.abbreviate(String.join(",", all))
              + ")");
    }
    return null;
  }

  /** The chosen columns in one part's schema, each checked to be a plain number. */
  private static ColumnDescriptor[] resolve(Path file, MessageType schema, String[] names)
      throws DataFormatException {
    Map<String, Type> top = new HashMap<>();
    List<String> all = new ArrayList<>();
    for (Type t : schema.getFields()) {
      top.put(t.getName(), t);
      all.add(t.getName());
    }
    for (int c = names.length - 1; c >= 0; c--) { // the label first: it is last
      if (!top.containsKey(names[c])) {
        throw DataFormatException.inFile(
            file,
            "no column named '"
                + names[c]
                + "' (columns: "
                + CsvColumns.abbreviate(String.join(",", all))
                + ")");
      }
    }
    ColumnDescriptor[] cs = new ColumnDescriptor[names.length];
    for (int c = 0; c < names.length; c++) {
      String name = names[c];
      Type t = top.get(name);
      if (!t.isPrimitive() || t.isRepetition(Type.Repetition.REPEATED)) {
        throw notNumber(file, name, t.isPrimitive() ? "a repeated field" : "a group (nested)");
      }
      PrimitiveType pt = t.asPrimitiveType();
      LogicalTypeAnnotation logical = pt.getLogicalTypeAnnotation();
      boolean plain =
          logical == null || logical instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation;
      switch (pt.getPrimitiveTypeName()) {
        case INT32, INT64, FLOAT, DOUBLE -> {
          if (!plain) {
            throw notNumber(file, name, pt.getPrimitiveTypeName() + " (" + logical + ")");
          }
        }
        default ->
            throw notNumber(
                file,
                name,
                pt.getPrimitiveTypeName() + (logical == null ? "" : " (" + logical + ")"));
      }
      cs[c] = schema.getColumnDescription(new String[] {name});
    }
    return cs;
  }

  private static DataFormatException notNumber(Path file, String name, String type) {
    return DataFormatException.inFile(
        file,
        "column '"
            + name
            + "' is "
            + type
            + "; only int32, int64, float and double columns can be features or the label");
  }

  /**
   * Whether a group's chosen columns may hold a null: a column that is optional and whose chunk
   * statistics do not say it has none.
   */
  boolean mayHaveNulls(Group g) {
    BlockMetaData block = footers.get(g.part()).getBlocks().get(g.index());
    for (ColumnDescriptor c : chosen[g.part()]) {
      if (c.getMaxDefinitionLevel() == 0) {
        continue;
      }
      ColumnChunkMetaData meta = chunk(block, c);
      Statistics<?> s = meta == null ? null : meta.getStatistics();
      if (s == null || !s.isNumNullsSet() || s.getNumNulls() != 0) {
        return true;
      }
    }
    return false;
  }

  private static ColumnChunkMetaData chunk(BlockMetaData block, ColumnDescriptor c) {
    for (ColumnChunkMetaData m : block.getColumns()) {
      if (m.getPath().equals(org.apache.parquet.hadoop.metadata.ColumnPath.get(c.getPath()))) {
        return m;
      }
    }
    return null;
  }

  /** Decodes one row group's chosen columns (the others are not read). */
  Decoded decode(Group g) throws IOException, DataFormatException {
    Path file = files.get(g.part());
    ColumnDescriptor[] cs = chosen[g.part()];
    if (g.rows() > Integer.MAX_VALUE - 8) {
      throw DataFormatException.inFile(
          file, "row group " + g.index() + " has " + g.rows() + " rows, more than one array holds");
    }
    int n = (int) g.rows();
    double[][] values = new double[cs.length][n];
    int[] missing = null;
    int nulls = 0;
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file), options())) {
      List<org.apache.parquet.schema.Type> fields = new ArrayList<>();
      for (ColumnDescriptor c : cs) {
        fields.add(r.getFooter().getFileMetaData().getSchema().getType(c.getPath()[0]));
      }
      MessageType projection = new MessageType("schema", fields);
      r.setRequestedSchema(projection);
      PageReadStore pages = r.readRowGroup(g.index());
      if (pages == null || pages.getRowCount() != n) {
        throw DataFormatException.inFile(file, "the file changed while it was read");
      }
      ColumnReadStoreImpl store =
          new ColumnReadStoreImpl(
              pages,
              new GroupRecordConverter(projection).getRootConverter(),
              projection,
              r.getFooter().getFileMetaData().getCreatedBy());
      for (int c = 0; c < cs.length; c++) {
        ColumnDescriptor desc = projection.getColumns().get(c);
        ColumnReader col = store.getColumnReader(desc);
        int full = desc.getMaxDefinitionLevel();
        double[] v = values[c];
        PrimitiveType.PrimitiveTypeName type = desc.getPrimitiveType().getPrimitiveTypeName();
        boolean unsigned = isUnsigned(desc.getPrimitiveType());
        for (int i = 0; i < n; i++) {
          if (col.getCurrentDefinitionLevel() < full) {
            if (missing == null) {
              missing = new int[n];
            }
            if (missing[i] == 0) {
              missing[i] = c + 1;
              nulls++;
            }
            v[i] = Double.NaN;
          } else {
            v[i] =
                switch (type) {
                  case INT32 ->
                      unsigned ? Integer.toUnsignedLong(col.getInteger()) : col.getInteger();
                  case INT64 -> unsigned ? unsignedLong(col.getLong()) : col.getLong();
                  case FLOAT -> col.getFloat();
                  default -> col.getDouble();
                };
          }
          col.consume();
        }
      }
    } catch (RuntimeException e) {
      throw DataFormatException.inFile(
          file, "row group " + g.index() + " cannot be decoded (" + e.getMessage() + ")");
    } catch (ParquetCodecs.UnsupportedCodec e) {
      throw DataFormatException.inFile(file, e.getMessage());
    }
    return new Decoded(g, values, missing, nulls);
  }

  private static boolean isUnsigned(PrimitiveType t) {
    return t.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation i
        && !i.isSigned();
  }

  private static double unsignedLong(long v) {
    return v >= 0 ? v : Double.parseDouble(Long.toUnsignedString(v)); // correctly rounded
  }

  /** "FILE row R (row group G), column 'c'", R counted from 1 over the part file. */
  String where(Group g, int row, int column) {
    long inFile = row + 1;
    for (Group o : groups) {
      if (o.part() == g.part() && o.index() < g.index()) {
        inFile += o.rows();
      }
    }
    return files.get(g.part())
        + " row "
        + inFile
        + " (row group "
        + g.index()
        + ")"
        + (column < 0 ? "" : ", column '" + names[column] + "'");
  }
}
