/**
 * A TCP proxy between a process and a server (PostgreSQL), for fault tests: `cut()` drops every open
 * connection and refuses new ones (the database "goes away"), `restore()` lets connections through again.
 */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Connections open through the proxy now. */
  open(): number;
  /** Drops every connection and refuses new ones until `restore()`. */
  cut(): void;
  /**
   * Drops every connection and stops listening until `restore()`: new connections are refused by the
   * system (ECONNREFUSED), as when the database server is not running.
   */
  refuse(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<{ a: net.Socket; b: net.Socket }>();
  let down = false;
  const server = net.createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    const pair = { a: client, b: upstream };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  let listening = true;
  const dropAll = () => {
    for (const { a, b } of pairs) {
      a.destroy();
      b.destroy();
    }
    pairs.clear();
  };
  return {
    port,
    open: () => pairs.size,
    cut() {
      down = true;
      dropAll();
    },
    refuse() {
      down = true;
      dropAll();
      if (listening) {
        listening = false;
        server.close();
      }
    },
    restore() {
      down = false;
      if (!listening) {
        listening = true;
        server.listen(port, '127.0.0.1');
      }
    },
    close() {
      down = true;
      dropAll();
      if (!listening) return Promise.resolve();
      listening = false;
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
