import { MPI, type Comm, type Intercomm, type Datatype, type Group, type Info, type Op, type Prequest, type Request, type Session, type Win } from '../../../src/index.js';

/**
 * The objects the fuzzer calls methods on (receivers) and passes as arguments: live ones of every
 * class, freed ones, null handles, and objects of the wrong kind. Everything collective is made
 * over MPI.COMM_SELF (or, for the intercommunicator, by every rank at once at set-up), so no call
 * of the storm can wait for another rank.
 */
export interface Fixtures {
  readonly world: Comm;
  readonly self: Comm;
  /** A duplicate of COMM_SELF: collectives on it involve this rank only. */
  readonly selfDup: Comm;
  readonly cart: Comm;
  readonly graph: Comm;
  readonly distgraph: Comm;
  /** Between the even and the odd ranks of COMM_WORLD; null with one rank. */
  readonly inter: Intercomm | null;
  readonly freedComm: Comm;
  readonly worldGroup: Group;
  readonly selfGroup: Group;
  readonly freedGroup: Group;
  readonly vector: Datatype;
  readonly uncommitted: Datatype;
  readonly freedType: Datatype;
  readonly userOp: Op;
  readonly freedOp: Op;
  readonly info: Info;
  readonly freedInfo: Info;
  readonly request: Request;
  readonly prequest: Prequest;
  /** A window of 64 bytes over COMM_SELF, in a Lock_all epoch, so operations on rank 0 are legal. */
  readonly win: Win;
  readonly freedWin: Win;
  /** A dynamic window over COMM_SELF, for Attach and Detach. */
  readonly dynamicWin: Win;
  readonly keyval: number;
  readonly mem: SharedArrayBuffer;
  /** A session beside the World Model (errors returned), and one finalized. */
  readonly session: Session;
  readonly finalizedSession: Session;
  /** A port this rank opened (MPI.Open_port): valid for Accept, Connect and the name service. */
  readonly port: string;
}

export function makeFixtures(): Fixtures {
  const world = MPI.COMM_WORLD;
  const self = MPI.COMM_SELF;
  const selfDup = self.Dup();
  const freedComm = self.Dup();
  freedComm.Free();
  let inter: Intercomm | null = null;
  if (world.size > 1) {
    const half = world.Split(world.rank % 2, world.rank);
    inter = half.Create_intercomm(0, world, world.rank % 2 === 0 ? 1 : 0, 77);
    inter.Set_errhandler(MPI.ERRORS_RETURN);
    half.Free();
  }
  const freedGroup = world.Get_group();
  freedGroup.Free();
  const freedType = MPI.INT.Dup();
  freedType.Free();
  const freedOp = MPI.Op.Create(() => undefined, true);
  freedOp.Free();
  const info = MPI.Info.Create();
  info.Set('fuzz', 'yes');
  const freedInfo = MPI.Info.Create();
  freedInfo.Free();
  const win = MPI.Win.Create(new Uint8Array(64), 1, MPI.INFO_NULL, self);
  win.Set_errhandler(MPI.ERRORS_RETURN);
  win.Lock_all();
  const freedWin = MPI.Win.Create(new Uint8Array(8), 1, MPI.INFO_NULL, self);
  freedWin.Set_errhandler(MPI.ERRORS_RETURN);
  freedWin.Free();
  const dynamicWin = MPI.Win.Create_dynamic(MPI.INFO_NULL, self);
  dynamicWin.Set_errhandler(MPI.ERRORS_RETURN);
  return {
    world, self, selfDup, freedComm, inter,
    cart: self.Create_cart([1], [true]),
    graph: self.Create_graph([1], [0]),
    distgraph: self.Create_dist_graph_adjacent([0], [0]),
    worldGroup: world.Get_group(),
    selfGroup: self.Get_group(),
    freedGroup,
    vector: MPI.INT.Create_vector(2, 1, 2).Commit(),
    uncommitted: MPI.INT.Create_contiguous(2),
    freedType,
    userOp: MPI.Op.Create((a: Int32Array, b: Int32Array) => { for (let i = 0; i < b.length; i++) b[i] = a[i]! + b[i]!; }, true),
    freedOp,
    info,
    freedInfo,
    request: world.Isend(new Int32Array(1), MPI.PROC_NULL),
    prequest: world.Send_init(new Int32Array(1), MPI.PROC_NULL),
    win,
    freedWin,
    dynamicWin,
    keyval: MPI.Comm.Create_keyval(),
    mem: MPI.Alloc_mem(64),
    session: MPI.Session.Init(MPI.INFO_NULL, MPI.ERRORS_RETURN),
    port: MPI.Open_port(),
    finalizedSession: finalized(MPI.Session.Init(MPI.INFO_NULL, MPI.ERRORS_RETURN)),
  };
}

function finalized<T extends { Finalize(): void }>(session: T): T {
  session.Finalize();
  return session;
}

/** Releases what makeFixtures made (the leak check compares the engine's state after this). */
export function freeFixtures(f: Fixtures): void {
  f.session.Finalize();
  f.win.Unlock_all();
  f.win.Free();
  f.dynamicWin.Free();
  for (const c of [f.selfDup, f.cart, f.graph, f.distgraph]) c.Free();
  f.inter?.Free();
  f.worldGroup.Free();
  f.selfGroup.Free();
  f.vector.Free();
  f.uncommitted.Free();
  f.userOp.Free();
  f.info.Free();
  f.request.Free();
  f.prequest.Free();
  MPI.Comm.Free_keyval(f.keyval);
  MPI.Free_mem(f.mem);
}

/**
 * Wrong values that fit no parameter of a kind unless its oracle says so: wrong types, odd
 * numbers, and objects of every class (live, freed and null), so a Group goes where a Comm is
 * wanted and a freed Datatype where a live one is.
 */
export function badPool(f: Fixtures): unknown[] {
  const pool: unknown[] = [
    undefined, null, NaN, -1, -7, 2 ** 31, 2 ** 53, 1.5, -0.5, Infinity, -Infinity, 1e300, '', 'x', '0', true, false,
    {}, [], [42], [null], [[1]], Symbol('fuzz'), () => 0, 10n, new Date(0),
    f.world, f.selfDup, f.freedComm, MPI.COMM_NULL, f.worldGroup, f.freedGroup, MPI.GROUP_EMPTY, MPI.INT, f.vector,
    f.uncommitted, f.freedType, MPI.DATATYPE_NULL, MPI.SUM, f.userOp, f.freedOp, f.info, f.freedInfo, MPI.INFO_NULL,
    f.request, f.prequest, new MPI.Status(), f.win, f.freedWin, MPI.ERRORS_RETURN, MPI.IN_PLACE,
    new Int32Array(4), new Float64Array(0), new ArrayBuffer(3), [new Int32Array(4), -1, MPI.INT],
    [new Int32Array(4), 1000, MPI.INT], [new Int32Array(4), 2, f.freedType], [new Int32Array(4), 2, f.uncommitted],
    [new Int32Array(4), 1, 'x'], [new Int32Array(4), 1, MPI.INT, 9], [new Int32Array(4), 1.5, MPI.INT],
    [new Int32Array(4), MPI.DATATYPE_NULL], [{}, MPI.INT], [1.5], ['x'], [0, -5, MPI.INT], [0, 1000, MPI.INT],
  ];
  if (f.inter !== null) pool.push(f.inter);
  return pool;
}
