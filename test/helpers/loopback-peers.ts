/**
 * Real peers on loopback for the contact outbox's tests: a webhook receiver (node:http) and an
 * SMTP server (the `smtp-server` package; messages parsed with `mailparser`). Each decides its
 * answers per request, so a test can make it fail, hang or vanish, then recover.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';

export interface ReceivedRequest {
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** A webhook receiver on a free port; `respond` decides each answer (200 "ok" by default). */
export class WebhookReceiver {
  received: ReceivedRequest[] = [];
  respond: (res: ServerResponse, index: number) => void = (res) => res.end('ok');
  #waiters: Array<{ count: number; resolve: () => void }> = [];
  #server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const index = this.received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }) - 1;
      this.respond(res, index);
      this.#wake();
    });
  });
  url = '';

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hooks/contact`;
    return this;
  }
  stop(): Promise<void> {
    if (!this.#server.listening) return Promise.resolve();
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
  ids(): number[] {
    return this.received.map((r) => (r.body as { id: number }).id);
  }
  /** Resolves once `count` requests have arrived in all. */
  until(count: number): Promise<void> {
    return new Promise((resolve) => {
      this.#waiters.push({ count, resolve });
      this.#wake();
    });
  }
  #wake(): void {
    this.#waiters = this.#waiters.filter((w) => (this.received.length >= w.count ? (w.resolve(), false) : true));
  }
}

export interface ReceivedMail {
  envelope: { from: string; to: string[] };
  raw: string;
  parsed: ParsedMail;
}

/**
 * An SMTP server on a free loopback port, without STARTTLS (plain SMTP on loopback), optionally
 * asking for a login. `onData` decides each message's fate: accept (the default), refuse with an
 * SMTP reply code, or drop the connection mid-session.
 */
export class SmtpSink {
  mails: ReceivedMail[] = [];
  /** Every DATA command's outcome, in order (accepted or refused). */
  attempts = 0;
  onData: (index: number) => 'accept' | { refuse: number; message: string } | 'disconnect' | 'hang' = () => 'accept';
  port = 0;
  #sockets = new Set<Socket>();
  #waiters: Array<{ count: number; resolve: () => void }> = [];
  readonly #server: SMTPServer;

  constructor(options: { auth?: { user: string; pass: string } } = {}) {
    this.#server = new SMTPServer({
      disabledCommands: options.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
      allowInsecureAuth: true,
      authOptional: options.auth === undefined,
      logger: false,
      onAuth: (auth, _session, callback) => {
        if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass) callback(null, { user: auth.username });
        else callback(new Error('Invalid username or password'));
      },
      onConnect: (_session, callback) => callback(),
      onData: (stream: SMTPServerDataStream, session: SMTPServerSession, callback) => this.#data(stream, session, callback),
    });
    this.#server.server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
  }

  async #data(stream: SMTPServerDataStream, session: SMTPServerSession, callback: (error?: Error | null) => void): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    const index = this.attempts++;
    const fate = this.onData(index);
    if (fate === 'hang') {
      // Never answers the message: the client's timeout must end the attempt.
    } else if (fate === 'disconnect') {
      for (const socket of this.#sockets) socket.destroy();
    } else if (fate === 'accept') {
      const raw = Buffer.concat(chunks).toString('utf8');
      const envelope = { from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address) };
      this.mails.push({ envelope, raw, parsed: await simpleParser(raw) });
      callback();
    } else {
      callback(Object.assign(new Error(fate.message), { responseCode: fate.refuse }));
    }
    this.#wake();
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.#server.server.address() as AddressInfo).port;
    return this;
  }
  url(credentials = ''): string {
    return `smtp://${credentials}127.0.0.1:${this.port}`;
  }
  stop(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
  /** Resolves once `count` DATA commands have been answered in all. */
  until(count: number): Promise<void> {
    return new Promise((resolve) => {
      this.#waiters.push({ count, resolve });
      this.#wake();
    });
  }
  #wake(): void {
    this.#waiters = this.#waiters.filter((w) => (this.attempts >= w.count ? (w.resolve(), false) : true));
  }
}
