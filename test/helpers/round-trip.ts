import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Run one handler on a real socket and return what the client saw. */
export async function roundTrip(handler: (req: IncomingMessage, res: ServerResponse) => void, body?: Buffer | string, path = '/x'): Promise<{ status: number; text: string; server: () => void }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', path, method: body === undefined ? 'GET' : 'POST' }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, server: () => server.close() }));
    });
    req.on('error', (error) => {
      server.close();
      reject(error);
    });
    req.end(body);
  });
}
