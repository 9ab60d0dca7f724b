/**
 * The name service of one tsmpiexec (MPI.Publish_name, Lookup_name, Unpublish_name through
 * PMI-1's publish_name, lookup_name and unpublish_name): one table shared by the PMI servers of
 * every job the launcher runs, the first job and each spawned one, so a client job finds the
 * port a server job published. It lives as long as the launcher; names are not withdrawn when
 * the publishing job ends (as in hydra).
 */
export class NameService {
  private readonly ports = new Map<string, string>();

  /** Publishes `port` under `service`; false when the name is taken (publishing it again is an error). */
  publish(service: string, port: string): boolean {
    if (this.ports.has(service)) return false;
    this.ports.set(service, port);
    return true;
  }

  /** Withdraws `service`; false when it was not published. */
  unpublish(service: string): boolean {
    return this.ports.delete(service);
  }

  lookup(service: string): string | undefined {
    return this.ports.get(service);
  }
}
