import type net from 'node:net';
import { LineSplitter } from '../../../src/pmi/index.js';

/** A raw asynchronous PMI client over a socket, for the server's tests: write a line, await the next line. */
export class RawClient {
  private readonly lines: string[] = [];
  private waiting: ((line: string) => void) | null = null;
  constructor(readonly socket: net.Socket) {
    const split = new LineSplitter();
    socket.setEncoding('utf8').on('data', (d: string) => {
      for (const l of split.push(d)) {
        if (this.waiting) {
          const w = this.waiting;
          this.waiting = null;
          w(l);
        } else this.lines.push(l);
      }
    });
  }
  next(): Promise<string> {
    const l = this.lines.shift();
    return l !== undefined ? Promise.resolve(l) : new Promise((resolve) => (this.waiting = resolve));
  }
  async ask(line: string): Promise<string> {
    this.socket.write(line);
    return this.next();
  }
}
