import type { Device, WakeHandle } from './device.js';

/**
 * How progress sleeps: on the rank's doorbell, with every device that needs it told first.
 * Peers that share memory ring the doorbell themselves; a device whose peers cannot
 * (announceSleep) asks them to wake the rank its own way when the first waiter announces sleep,
 * and withdraws the request when the last one retracts. The devices are told after the doorbell
 * announcement and before the caller's last poll, so a packet is either seen by that poll or
 * answered with a wake-up.
 */
export class RankWake implements WakeHandle {
  private announced = 0;
  private readonly told: Device[];

  constructor(private readonly bell: WakeHandle, devices: readonly Device[]) {
    this.told = devices.filter((d) => d.announceSleep !== undefined);
  }

  /** A device opened after Init (dynamic processes' network device): told from the next announcement. */
  add(device: Device): void {
    if (device.announceSleep === undefined || this.told.includes(device)) return;
    this.told.push(device);
    if (this.announced > 0) device.announceSleep(true);
  }

  announce(): number {
    const seen = this.bell.announce();
    if (this.announced++ === 0) this.tell(true);
    return seen;
  }

  sleep(seen: number, timeoutMs: number): void {
    this.bell.sleep(seen, timeoutMs);
  }

  sleepAsync(seen: number, timeoutMs: number): Promise<unknown> {
    return this.bell.sleepAsync(seen, timeoutMs);
  }

  retract(): void {
    if (--this.announced === 0) this.tell(false);
    this.bell.retract();
  }

  poke(): void {
    this.bell.poke();
  }

  private tell(asleep: boolean): void {
    const told = this.told;
    for (let i = 0; i < told.length; i++) told[i]!.announceSleep!(asleep);
  }
}
