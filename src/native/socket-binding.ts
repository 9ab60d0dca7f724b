/**
 * The addon's sockets (native/src/socket.cc): blocking descriptors for code that runs
 * synchronously, PMI's client (MPI.Init) and MPI's ports (Open_port, Accept, Connect, Join).
 */
export interface SocketBinding {
  /**
   * A connected AF_UNIX stream pair, both ends blocking and close-on-exec (spawn's stdio dup2
   * clears the flag on the copy it gives the child).
   */
  socketpair(): [number, number];

  /**
   * A blocking, close-on-exec, TCP_NODELAY socket connected to `host:port`; the host may be a
   * name or an IPv4/IPv6 literal, and every address it resolves to is tried in turn.
   *
   * @param timeoutMs for the whole connect; negative or Infinity for none.
   * @throws code 'ECONNREFUSED', 'ETIMEDOUT', 'ENOTFOUND' (unknown host), ... with host:port in
   *   the message.
   */
  connectTcp(host: string, port: number, timeoutMs: number): number;

  /**
   * A blocking, close-on-exec socket connected to the Unix socket at `path`.
   *
   * @param timeoutMs bounds the wait when the listener's backlog is full; negative or Infinity
   *   for none.
   * @throws code 'ENOENT' (no such path), 'ECONNREFUSED' (nobody listening), 'ETIMEDOUT'.
   */
  connectUnix(path: string, timeoutMs: number): number;

  /**
   * A blocking, close-on-exec TCP socket listening on every address of the host, on a port the
   * kernel chose (MPI.Open_port): [fd, port].
   */
  listenTcp(): [number, number];
  /** The next connection on listening socket `fd` (blocking, TCP_NODELAY), or -1 when none came within timeoutMs. */
  acceptTcp(fd: number, timeoutMs: number): number;
  /** Whether `fd` has data to read (or its peer closed) within timeoutMs. */
  waitReadable(fd: number, timeoutMs: number): boolean;

  /** Clears (blocking) or sets (non-blocking) O_NONBLOCK on `fd`. */
  setBlocking(fd: number, blocking: boolean): void;
}
