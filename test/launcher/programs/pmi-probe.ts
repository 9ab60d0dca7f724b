/**
 * A stranger on the cluster knocking at tsmpiexec's PMI port: `pmi-probe host:port mode`
 * connects, sends what `mode` says, and prints as JSON what came back within 2 s and whether
 * the launcher closed the connection. Modes: silent (sends nothing), plain (PMI without any
 * secret, as to hydra), wrong (a wrong secret, then PMI), agent (the agent role, wrong secret).
 */
import net from 'node:net';

const [address = '', mode = 'plain'] = process.argv.slice(2);
const colon = address.lastIndexOf(':');
const PMI = 'cmd=init pmi_version=1 pmi_subversion=1\ncmd=get_maxes\ncmd=get_my_kvsname\ncmd=get kvsname=x key=y\n';
const sends: Record<string, string> = {
  silent: '',
  plain: PMI,
  wrong: `cmd=auth role=rank secret=${'0'.repeat(64)}\n${PMI}`,
  agent: `cmd=auth role=agent secret=${'f'.repeat(64)}\n{"t":"hello","host":"h2","hostname":"h2"}\n`,
};
let received = '';
let closed = false;
const socket = net.connect({ host: address.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), port: Number(address.slice(colon + 1)) });
socket.on('connect', () => socket.write(sends[mode] ?? PMI));
socket.on('data', (d) => (received += d.toString()));
socket.on('error', () => {});
socket.on('close', () => {
  closed = true;
  finish();
});
const timer = setTimeout(finish, 2000);
function finish(): void {
  clearTimeout(timer);
  console.log(JSON.stringify({ mode, received, closed }));
  socket.destroy();
  process.exit(0);
}
