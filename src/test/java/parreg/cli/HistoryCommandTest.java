package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code parreg history} on the golden v1 journal (seed run, 200 steps, a SIGKILL and restart in
 * it).
 */
class HistoryCommandTest {
  @TempDir Path dir;
  Path journal;

  @BeforeEach
  void copyFixture() throws Exception {
    // H2 may touch a database file it opens: work on a copy, never on the fixture.
    journal = Files.createDirectories(dir.resolve("node-1"));
    try (InputStream in =
        getClass().getResourceAsStream("/golden-journal-v1/node-1/journal.mv.db")) {
      Files.copy(in, journal.resolve("journal.mv.db"));
    }
  }

  @Test
  void aRuntimeWithoutFontLibrariesGetsOneClearMessage() {
    // What the distribution's runtime does on a machine without libharfbuzz (the GPU machine).
    IllegalStateException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalStateException.class,
            () ->
                LossChart.guarded(
                    () -> {
                      throw new UnsatisfiedLinkError(
                          "libfontmanager.so: libharfbuzz.so.0: cannot open shared object file");
                    }));
    assertTrue(e.getMessage().startsWith("cannot draw the loss chart"), e.getMessage());
    assertTrue(e.getMessage().contains("libharfbuzz.so.0"), e.getMessage());
    assertTrue(e.getMessage().contains("--out"), e.getMessage());
  }

  @Test
  void csvHasOneRowPerStepWithTheRecordedLossAndTime() throws Exception {
    Path csv = dir.resolve("loss.csv");
    CommandLineTest.Run r =
        CommandLineTest.run(
            "history",
            "--journal",
            journal.toString(),
            "--participant",
            "1",
            "--out",
            csv.toString());
    assertEquals(0, r.code(), r.err());
    List<String> lines = Files.readAllLines(csv);
    assertEquals("step,loss,time", lines.get(0));
    assertEquals(201, lines.size(), "a header and one row per step 1..200");
    for (int k = 1; k <= 200; k++) {
      String[] f = lines.get(k).split(",", -1);
      assertEquals(3, f.length, lines.get(k));
      assertEquals(k, Long.parseLong(f[0]));
      // Seed run: step k computes with w = 3·2^-(k-1); residuals w, w, 2w over mass 3 give the loss
      // (w² + w² + 4w²) / 6 = w² = 9·4^-(k-1) while (float) w is exact; from step 152 (float) w is
      // 0.
      if (k <= 100) {
        assertEquals(9.0 * Math.pow(4, -(k - 1)), Double.parseDouble(f[1]), "step " + k);
      } else if (k > 151) {
        assertEquals(0.0, Double.parseDouble(f[1]), "step " + k);
      }
      assertTrue(Instant.parse(f[2]).isAfter(Instant.parse("2026-01-01T00:00:00Z")), lines.get(k));
    }

    CommandLineTest.Run again =
        CommandLineTest.run(
            "history",
            "--journal",
            journal.toString(),
            "--participant",
            "1",
            "--out",
            csv.toString());
    CommandLineTest.assertUserError(
        again, "--out " + csv + " already exists; it is never overwritten");
    assertEquals(201, Files.readAllLines(csv).size(), "the existing file is untouched");
  }

  @Test
  void plotIsAPngOfTheStatedSize() throws Exception {
    Path png = dir.resolve("loss.png");
    CommandLineTest.Run r =
        CommandLineTest.run(
            "history",
            "--journal",
            journal.toString(),
            "--participant",
            "1",
            "--plot",
            png.toString(),
            "--width",
            "800",
            "--height",
            "500");
    assertEquals(0, r.code(), r.err());
    byte[] bytes = Files.readAllBytes(png);
    assertArrayEquals(
        new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, Arrays.copyOf(bytes, 8));
    BufferedImage img = ImageIO.read(png.toFile());
    assertNotNull(img, "ImageIO decodes it");
    assertEquals(800, img.getWidth());
    assertEquals(500, img.getHeight());
    // A chart, not a blank canvas: the plotted line's colour is there.
    boolean line = false;
    for (int x = 0; x < img.getWidth() && !line; x++) {
      for (int y = 0; y < img.getHeight() && !line; y++) {
        line = (img.getRGB(x, y) & 0xffffff) == 0x1f77b4;
      }
    }
    assertTrue(line, "the loss curve is drawn");
  }

  @Test
  void badOptionsWriteNothing() throws Exception {
    Path csv = dir.resolve("x.csv");
    Path png = dir.resolve("no-such-dir").resolve("p.png");
    CommandLineTest.Run r =
        CommandLineTest.run(
            "history",
            "--journal",
            journal.toString(),
            "--participant",
            "1",
            "--out",
            csv.toString(),
            "--plot",
            png.toString());
    CommandLineTest.assertUserError(
        r, "--plot " + png + ": " + png.getParent() + " does not exist");
    assertFalse(Files.exists(csv));

    r =
        CommandLineTest.run(
            "history",
            "--journal",
            journal.toString(),
            "--participant",
            "1",
            "--plot",
            dir.resolve("p.png").toString(),
            "--width",
            "10");
    CommandLineTest.assertUserError(r, "--width/--height 10x600");
    assertFalse(Files.exists(dir.resolve("p.png")));
  }
}
