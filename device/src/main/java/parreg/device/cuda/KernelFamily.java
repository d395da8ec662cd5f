package parreg.device.cuda;

import jcuda.Pointer;
import jcuda.driver.CUfunction;

/**
 * How the backend runs a plan's kernels: one constant per kernel family, owning what differs
 * between families (how its arguments are passed, whether it takes work by ticket, the layout x is
 * resident in, the grid it launches), so that {@link CudaBackend} launches any plan with one call,
 * {@link #enqueue}. {@link CudaPlan} builds the plans (shapes, block, shared memory) and holds the
 * ladder; {@link KernelShapes} the shapes built. {@link #label} is the family's name as plans
 * report it.
 */
enum KernelFamily {
  /** A block of 8 warps a group of 8 tiles (d &le; 16). */
  SMALL("small", Args.POINTERS, false) {
    @Override
    void enqueue(Batch b) {
      b.launch(b.main(), Math.min((b.tiles() + 7) / 8, b.full()), b.plan().block(), 0, b.common());
    }
  },
  /** A warp a tile (narrow, narrowp): a balanced grid, the weights by value. */
  NARROW("narrow", Args.WEIGHTS_BY_VALUE, false) {
    @Override
    void enqueue(Batch b) {
      int grid = b.balanced(b.tiles(), b.plan().block() / 32, b.full());
      b.launch(b.main(), grid, b.plan().block(), 0, b.byValue());
    }
  },
  /** A team of warps a tile, round robin. */
  SPLIT("split", Args.POINTERS, false) {
    @Override
    void enqueue(Batch b) {
      int grid = b.balanced(b.tiles(), CudaPlan.splitTeams(b.plan()), b.full());
      b.launch(b.main(), grid, b.plan().block(), b.plan().smem(), b.common());
    }
  },
  /**
   * Spec's block on the plain layout (whole 16-byte rows of a slice, the weights by value); batches
   * at offsets run the split kernel of d, which reads the same layout at any start.
   */
  SPECP("specp", Args.WEIGHTS_BY_VALUE, false) {
    @Override
    void enqueue(Batch b) {
      if (b.start() % 32 == 0) {
        b.launch(
            b.main(),
            Math.min(b.tiles(), b.full()),
            b.plan().block(),
            b.plan().smem(),
            b.byValue());
      } else {
        CudaPlan fb = b.specpFallback(); // chosen once at load, not each step
        int grid = b.balanced(b.tiles(), CudaPlan.splitTeams(fb), b.fallbackFull());
        b.launch(b.fallback(), grid, fb.block(), fb.smem(), b.common());
      }
    }
  },
  /**
   * The residual pass (a warp a slice), then the gradient pass (a warp a tile and 16 features, plus
   * one for the bias and loss sums).
   */
  DEEP("deep", Args.POINTERS, false) {
    @Override
    void enqueue(Batch b) {
      long slices = (b.length() + 31) / 32;
      b.launch(b.main(), b.balanced(slices, 8, b.full()), 256, b.plan().smem(), b.common());
      long tasks = (long) b.tiles() * ((b.d() + 15) / 16 + 1);
      b.launch(b.grad(), b.balanced(tasks, 8, b.gradFull()), 256, 0, b.common());
    }
  },
  /** deep's two passes fused: persistent blocks, as many as fit. */
  DEEPF("deepf", Args.POINTERS, true) {
    @Override
    void enqueue(Batch b) {
      b.resetTickets();
      b.launch(b.main(), b.full(), b.plan().block(), b.plan().smem(), b.common());
    }
  },
  /** deepw, deepx: exactly one persistent block an SM, its chain warp a fixed share of the card. */
  DEEPW("deepw", Args.POINTERS, true) {
    @Override
    void enqueue(Batch b) {
      b.resetTickets();
      b.launch(b.main(), b.smCount(), b.plan().block(), b.plan().smem(), b.common());
    }
  },
  /**
   * deepxb fed by the copy engine: one block an SM; its bulk copies need a slice's rows contiguous,
   * so batches at offsets run deepxb.
   */
  DEEPT("deept", Args.POINTERS, true) {
    @Override
    void enqueue(Batch b) {
      b.resetTickets();
      if (b.start() % 32 != 0) {
        int deepxb =
            32 * (1 + KernelShapes.DEEPX_SLOTS + KernelShapes.DEEPX_GRAD_WARPS.get("deepxb"));
        b.launch(b.fallback(), b.smCount(), deepxb, b.plan().smem(), b.common());
      } else {
        b.launch(b.main(), b.smCount(), b.plan().block(), b.plan().smem(), b.common());
      }
    }
  },
  /** A block a tile, x staged through shared memory. */
  LARGE("large", Args.POINTERS, false) {
    @Override
    void enqueue(Batch b) {
      blockPerTile(b);
    }
  },
  /** A block a tile, loads pipelined. */
  PIPE("pipe", Args.POINTERS, false) {
    @Override
    void enqueue(Batch b) {
      blockPerTile(b);
    }
  },
  /** A block a tile reading whole slices; batches at offsets run its pipe kernel. */
  FLOW("flow", Args.WEIGHTS_BY_VALUE, false) {
    @Override
    void enqueue(Batch b) {
      slicesOrPipe(b);
    }
  },
  /** flow on the quad layout. */
  QUAD("quad", Args.WEIGHTS_BY_VALUE, false) {
    @Override
    void enqueue(Batch b) {
      slicesOrPipe(b);
    }
  },
  /** Chain warps and accumulating warps over slots of the quad layout padded to a slice width. */
  SPEC("spec", Args.WEIGHTS_BY_VALUE, false) {
    @Override
    void enqueue(Batch b) {
      slicesOrPipe(b);
    }
  },
  /**
   * The wide family on the octet layout (wide, wide2, widea, widep, widet): a block a tile; batches
   * at offsets run the two octet passes.
   */
  WIDE("wide", Args.POINTERS, false) {
    @Override
    void enqueue(Batch b) {
      if (b.start() % 32 == 0) {
        b.launch(
            b.main(), Math.min(b.tiles(), b.full()), b.plan().block(), b.plan().smem(), b.common());
      } else {
        octetPasses(b);
      }
    }
  },
  /**
   * widel: widet with the weights read from global memory, zero-padded to the slice width (the
   * kernel's last parameter); reported as a wide plan.
   */
  WIDEL("wide", Args.PADDED_WEIGHTS, false) {
    @Override
    void enqueue(Batch b) {
      if (b.start() % 32 == 0) {
        b.launch(
            b.main(), Math.min(b.tiles(), b.full()), b.plan().block(), b.plan().smem(), b.lean());
      } else {
        octetPasses(b);
      }
    }
  },
  /** Clusters of widet blocks: whole clusters (the kernel's __cluster_dims__), all resident. */
  WIDEC("widec", Args.POINTERS, false) {
    @Override
    void enqueue(Batch b) {
      if (b.start() % 32 == 0) {
        int clusters = Math.min(b.tiles(), b.widecMaxClusters());
        b.launch(
            b.main(), b.widecBlocks() * clusters, b.plan().block(), b.plan().smem(), b.common());
      } else {
        octetPasses(b);
      }
    }
  },
  /** A residual pass, a warp per tile, then a gradient pass: any d. */
  TWOPASS("twopass", Args.POINTERS, false) {
    @Override
    void enqueue(Batch b) {
      b.twoPasses(b.main(), Math.min((b.tiles() + 7) / 8, b.full()));
    }
  };

  /** How a family's main kernel takes the weights after the arguments every kernel takes. */
  enum Args {
    /** Only the common arguments (the parameters by pointer; the residuals' buffer last). */
    POINTERS,
    /** The weights also by value (WParam: w32[256], b32), as the flow family reads them. */
    WEIGHTS_BY_VALUE,
    /** The weights zero-padded to the slice width, in their own buffer, as the last argument. */
    PADDED_WEIGHTS
  }

  private final String label;
  private final Args args;
  private final boolean ticketed;

  KernelFamily(String label, Args args, boolean ticketed) {
    this.label = label;
    this.args = args;
    this.ticketed = ticketed;
  }

  /** The family's name as a plan reports it ("small", "spec", "wide", ...). */
  String label() {
    return label;
  }

  /** Whether the main kernel takes the weights by value (WParam; flowArgs). */
  boolean weightsByValue() {
    return args == Args.WEIGHTS_BY_VALUE;
  }

  /** Whether the main kernel reads the weights zero-padded to the slice width (widel). */
  boolean paddedWeights() {
    return args == Args.PADDED_WEIGHTS;
  }

  /**
   * Whether the kernel takes slices and gradient tasks by ticket: its counters follow the residuals
   * and start at zero each launch.
   */
  boolean ticketed() {
    return ticketed;
  }

  /**
   * Whether x is resident in the octet layout (lane groups of 8; {@link ResidentLayout}); the
   * fallback of these families is the octet residual pass, launched without the plan's shared
   * memory.
   */
  boolean octets() {
    return this == WIDE || this == WIDEL || this == WIDEC;
  }

  /** Enqueues the family's kernels for one batch on the backend's stream. */
  abstract void enqueue(Batch b);

  private static void blockPerTile(Batch b) {
    b.launch(
        b.main(), Math.min(b.tiles(), b.full()), b.plan().block(), b.plan().smem(), b.common());
  }

  /**
   * flow, quad, spec: the main kernel reads whole slices as 16-byte vectors, the weights by value;
   * batches at offsets run the pipe kernel, which every family runs with 1024 threads.
   */
  private static void slicesOrPipe(Batch b) {
    int grid = Math.min(b.tiles(), b.full());
    if (b.start() % 32 == 0) {
      b.launch(b.main(), grid, b.plan().block(), b.plan().smem(), b.byValue());
    } else {
      b.launch(b.fallback(), grid, 1024, b.plan().smem(), b.common());
    }
  }

  private static void octetPasses(Batch b) {
    b.twoPasses(b.fallback(), Math.min((b.tiles() + 7) / 8, b.smCount() * 8));
  }

  /** What a family's launch reads of the backend for one batch. */
  interface Batch {
    CudaPlan plan();

    int d();

    /** The batch's first sample and its length. */
    int start();

    int length();

    int tiles();

    /** Blocks of the main kernel resident on the card at once; of the gradient pass. */
    int full();

    int gradFull();

    int smCount();

    CUfunction main();

    CUfunction fallback();

    CUfunction grad();

    /** The arguments every kernel takes ({@link CudaBackend}'s kernelArgs), its own buffer last. */
    Pointer common();

    /** The common arguments, then the weights by value. */
    Pointer byValue();

    /** The common arguments with the padded weights last (widel). */
    Pointer lean();

    /** specp: the split plan of d for batches at offsets, and its blocks resident at once. */
    CudaPlan specpFallback();

    int fallbackFull();

    /** widec: blocks a cluster, clusters resident at once. */
    int widecBlocks();

    int widecMaxClusters();

    /** Zeroes the tickets and the tiles' done counts that follow the residuals. */
    void resetTickets();

    /** Launches {@code f} on a one-dimensional grid. */
    void launch(CUfunction f, int grid, int block, int smem, Pointer args);

    /** The residual pass ({@code resid}, {@code grid} blocks), then the gradient pass. */
    void twoPasses(CUfunction resid, int grid);

    /**
     * Blocks of {@code warpsPerBlock} warps for kernels that take one unit of work per warp, round
     * robin ({@link CudaBackend}'s balanced grid).
     */
    int balanced(long units, int warpsPerBlock, int fullBlocks);
  }
}
