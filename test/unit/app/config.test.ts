import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { devServerOptions, siteOrigin } from '../../../src/app/astro-env.ts';
import { ConfigError, isLoopbackHost, loadConfig } from '../../../src/app/config.ts';
import { prepareDatabaseLocation } from '../../../src/app/database-location.ts';
import { configProblems } from '../../helpers/config.ts';

const SECRET = 's3cr3t-pw';

describe('loadConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(4321);
    expect(config.HOST).toBe('127.0.0.1');
    expect(config.DATABASE_URL).toBe('./data/site.db');
    expect(config.SITE_URL).toBe('http://127.0.0.1:4321');
    expect(config.ALLOWED_ORIGINS).toEqual(['http://127.0.0.1:4321', 'http://localhost:4321']);
    expect(config.TRUST_PROXY).toEqual({ kind: 'none' });
    expect(config.REDIS_URL).toBeUndefined();
    expect(config.RATE_LIMIT_DATA_DAY).toBe(5000);
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig({ PORT: '', REDIS_URL: '' }).PORT).toBe(4321);
  });

  it('names each bad variable and what it expects', () => {
    expect(configProblems({ PORT: 'eighty', REDIS_URL: 'http://x', RATE_LIMIT_CHAT_DAY: '-3', CHAT_ALLOW_NO_ORIGIN: 'maybe' })).toMatchInlineSnapshot(`
      [
        "PORT: must be a port number (got "eighty")",
        "REDIS_URL: must be a redis:// or rediss:// URL (got "http://x")",
        "CHAT_ALLOW_NO_ORIGIN: CHAT_ALLOW_NO_ORIGIN must be true or false (got "maybe")",
        "RATE_LIMIT_CHAT_DAY: must be greater than 0 (got "-3")",
      ]
    `);
  });

  it('refuses TRUST_PROXY=true because it would let clients spoof their address', () => {
    expect(configProblems({ TRUST_PROXY: 'true' })[0]).toMatch(/^TRUST_PROXY: use a hop count/);
  });

  it('parses TRUST_PROXY as a hop count or a list of proxies', () => {
    expect(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toEqual({ kind: 'hops', hops: 2 });
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8' }).TRUST_PROXY).toEqual({ kind: 'list', cidrs: ['127.0.0.1', '10.0.0.0/8'] });
    expect(configProblems({ TRUST_PROXY: 'proxy.example' })[0]).toContain('is not an IP address or CIDR');
  });

  it('derives allowed origins from SITE_URL, and takes an explicit list as origins', () => {
    expect(loadConfig({ SITE_URL: 'https://ads.example.com/' }).ALLOWED_ORIGINS).toEqual(['https://ads.example.com']);
    expect(loadConfig({ ALLOWED_ORIGINS: 'https://a.example, https://b.example/, https://a.example' }).ALLOWED_ORIGINS).toEqual(['https://a.example', 'https://b.example']);
    expect(configProblems({ ALLOWED_ORIGINS: 'a.example' })[0]).toMatch(/^ALLOWED_ORIGINS: "a.example" is not an http\(s\) origin/);
  });

  it('refuses an allowed origin with a path, query, fragment or credentials, and empty items', () => {
    expect(
      ['https://b.example/path', 'https://b.example?x=1', 'https://b.example#top', `https://user:${SECRET}@b.example`, 'ftp://b.example', '*', 'https://a.example,,https://b.example', 'https://a.example,'].map(
        (value) => configProblems({ ALLOWED_ORIGINS: value })[0],
      ),
    ).toMatchInlineSnapshot(`
      [
        "ALLOWED_ORIGINS: "https://b.example/path" has a path, query or fragment; an origin is scheme, host and port only, e.g. https://b.example",
        "ALLOWED_ORIGINS: "https://b.example?x=1" has a path, query or fragment; an origin is scheme, host and port only, e.g. https://b.example",
        "ALLOWED_ORIGINS: "https://b.example#top" has a path, query or fragment; an origin is scheme, host and port only, e.g. https://b.example",
        "ALLOWED_ORIGINS: "https://user:***@b.example/" carries credentials; an origin is scheme, host and port only",
        "ALLOWED_ORIGINS: "ftp://b.example" is not an http(s) origin such as https://example.com",
        "ALLOWED_ORIGINS: "*" is not an http(s) origin such as https://example.com",
        "ALLOWED_ORIGINS: item 2 is empty (a stray comma?)",
        "ALLOWED_ORIGINS: item 2 is empty (a stray comma?)",
      ]
    `);
  });

  it('refuses TRUST_PROXY items ipaddr.js cannot read, naming the item', () => {
    expect(['127.0.0.1/33', '127.0.0.256', '10.0.0.0/8/8', '127.1', 'fe80::1%eth0', '2001:db8::/129', '10.0.0.0/8,,192.0.2.1', '33'].map((value) => configProblems({ TRUST_PROXY: value })[0])).toMatchInlineSnapshot(`
      [
        "TRUST_PROXY: "127.0.0.1/33" has a prefix length outside 0-32",
        "TRUST_PROXY: "127.0.0.256" is not an IP address or CIDR range",
        "TRUST_PROXY: "10.0.0.0/8/8" is not an IP address or CIDR range",
        "TRUST_PROXY: "127.1" is not an IP address or CIDR range",
        "TRUST_PROXY: "fe80::1%eth0" is not an IP address or CIDR range",
        "TRUST_PROXY: "2001:db8::/129" has a prefix length outside 0-128",
        "TRUST_PROXY: item 2 is empty (a stray comma?)",
        "TRUST_PROXY: a hop count of at most 32 (got 33): trusting every hop lets any client choose its own rate-limit key",
      ]
    `);
  });

  it('refuses TRUST_PROXY ranges that trust every address, like true', () => {
    for (const value of ['0.0.0.0/0', '::/0', '::ffff:0.0.0.0/96', '10.0.0.0/8, 0.0.0.0/0']) {
      expect(configProblems({ TRUST_PROXY: value })[0]).toMatch(/^TRUST_PROXY: ".+" trusts every (IPv4 )?address, so any client could choose its own rate-limit key/);
    }
  });

  it('refuses a TRUST_PROXY range with host bits set, suggesting both readings', () => {
    expect(configProblems({ TRUST_PROXY: '10.0.0.1/8' })).toEqual(['TRUST_PROXY: "10.0.0.1/8" has host bits set: write 10.0.0.0/8 for the network or 10.0.0.1/32 for one address']);
  });

  it('accepts the DATABASE_URL forms create-db understands, and refuses other schemes', () => {
    for (const value of ['./data/site.db', '/srv/site.db', 'file:./site.db', 'file:///srv/site.db', ':memory:', 'postgres://u:p@h/db', 'postgresql://h/db']) {
      expect(loadConfig({ DATABASE_URL: value }).DATABASE_URL).toBe(value);
    }
    expect(['mysql://u@h/db', 'http://h/db', 'postgres:h/db', 'file://remote.example/site.db'].map((value) => configProblems({ DATABASE_URL: value })[0])).toMatchInlineSnapshot(`
      [
        "DATABASE_URL: must be a SQLite file path, a file: URL or a postgres:// URL; the scheme "mysql:" is not supported (got "mysql://***@h/db")",
        "DATABASE_URL: must be a SQLite file path, a file: URL or a postgres:// URL; the scheme "http:" is not supported (got "http://h/db")",
        "DATABASE_URL: must be a URL such as postgres://host:5432/database (user:password@ before the host when needed) (got "postgres:h/db")",
        "DATABASE_URL: a file: URL must name a local file, e.g. file:///srv/site/site.db (got "file://remote.example/site.db")",
      ]
    `);
  });

  it('refuses a CONTACT_WEBHOOK_URL written as a non-public address unless CONTACT_WEBHOOK_ALLOW_PRIVATE is set', () => {
    const hosts = ['http://127.0.0.1:9/hook', 'http://localhost:8080/in', 'http://[::1]/in', 'https://192.168.1.20/in', 'https://169.254.169.254/latest'];
    expect(hosts.map((url) => configProblems({ CONTACT_WEBHOOK_URL: url })[0])).toMatchInlineSnapshot(`
      [
        "CONTACT_WEBHOOK_URL: 127.0.0.1 is a loopback address, where the outbox refuses to deliver; set CONTACT_WEBHOOK_ALLOW_PRIVATE=true if the receiver is on this network on purpose",
        "CONTACT_WEBHOOK_URL: localhost is a loopback address, where the outbox refuses to deliver; set CONTACT_WEBHOOK_ALLOW_PRIVATE=true if the receiver is on this network on purpose",
        "CONTACT_WEBHOOK_URL: [::1] is a loopback address, where the outbox refuses to deliver; set CONTACT_WEBHOOK_ALLOW_PRIVATE=true if the receiver is on this network on purpose",
        "CONTACT_WEBHOOK_URL: 192.168.1.20 is a private address, where the outbox refuses to deliver; set CONTACT_WEBHOOK_ALLOW_PRIVATE=true if the receiver is on this network on purpose",
        "CONTACT_WEBHOOK_URL: 169.254.169.254 is a link-local address, where the outbox refuses to deliver; set CONTACT_WEBHOOK_ALLOW_PRIVATE=true if the receiver is on this network on purpose",
      ]
    `);
    for (const url of hosts) expect(configProblems({ CONTACT_WEBHOOK_URL: url, CONTACT_WEBHOOK_ALLOW_PRIVATE: 'true' })).toEqual([]);
    // A name is judged when it is dialled (DNS may change), a public address at once.
    expect(configProblems({ CONTACT_WEBHOOK_URL: 'https://hooks.example/in' })).toEqual([]);
    expect(configProblems({ CONTACT_WEBHOOK_URL: 'https://203.0.114.7/in' })).toEqual([]);
  });

  it('refuses credentials in LLM_BASE_URL and CONTACT_WEBHOOK_URL', () => {
    expect(configProblems({ LLM_BASE_URL: `https://user:${SECRET}@api.example/v1`, LLM_MODEL: 'm' })).toMatchInlineSnapshot(`
      [
        "LLM_BASE_URL: must not carry credentials (user:password@): put the key in LLM_API_KEY (got "https://user:***@api.example/v1")",
      ]
    `);
    expect(configProblems({ CONTACT_WEBHOOK_URL: `https://user:${SECRET}@hooks.example/in` })).toMatchInlineSnapshot(`
      [
        "CONTACT_WEBHOOK_URL: must not carry credentials (user:password@): fetch refuses them, and the delivery error stored with each submission would repeat the URL; use a secret path or query token instead (got "https://user:***@hooks.example/in")",
      ]
    `);
  });

  it('refuses a plain-http LLM_BASE_URL unless its host is loopback', () => {
    expect(configProblems({ LLM_BASE_URL: 'http://llm.example/v1', LLM_MODEL: 'm' })[0]).toMatch(/^LLM_BASE_URL: must be https unless the host is loopback/);
    for (const host of ['localhost', '127.0.0.1', '127.8.9.10', '[::1]']) {
      expect(loadConfig({ LLM_BASE_URL: `http://${host}:11434/v1`, LLM_MODEL: 'm' }).LLM_BASE_URL).toBe(`http://${host}:11434/v1`);
    }
    expect(loadConfig({ LLM_BASE_URL: 'https://llm.example/v1', LLM_MODEL: 'm' }).LLM_MODEL).toBe('m');
    expect([isLoopbackHost('[::ffff:7f00:1]'), isLoopbackHost('localhost.example'), isLoopbackHost('10.0.0.1')]).toEqual([true, false, false]);
  });

  it('never echoes a password or the API key, and states every problem on one line', () => {
    const env = {
      DATABASE_URL: `mysql://site:${SECRET}@db.example/site`,
      REDIS_URL: `http://:${SECRET}@redis.example:6379`,
      LLM_BASE_URL: `https://bot:${SECRET}@llm.example/v1`,
      LLM_API_KEY: SECRET,
      CONTACT_WEBHOOK_URL: `https://hook:${SECRET}@hooks.example/in`,
      ALLOWED_ORIGINS: `https://u:${SECRET}@a.example`,
      SITE_URL: `https://u:${SECRET}@a.example`,
    };
    let message = '';
    try {
      loadConfig(env);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^Invalid configuration: /);
    expect(message).not.toContain('\n');
    expect(message).not.toContain(SECRET);
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'LLM_BASE_URL', 'CONTACT_WEBHOOK_URL', 'ALLOWED_ORIGINS', 'SITE_URL']) expect(message).toContain(`${name}: `);
    // LLM_API_KEY alone is valid; with no LLM_BASE_URL the pairing rule speaks, without the key.
    expect(configProblems({ LLM_API_KEY: SECRET, LLM_MODEL: 'm' }).join()).not.toContain(SECRET);
  });

  it('turns the contact proof of work on with a key of at least 32 characters, and never echoes a short one', () => {
    expect(loadConfig({}).CONTACT_ALTCHA_HMAC_KEY).toBeUndefined();
    const key = 'k'.repeat(32);
    expect(loadConfig({ CONTACT_ALTCHA_HMAC_KEY: key }).CONTACT_ALTCHA_HMAC_KEY).toBe(key);
    const short = 'short-secret-value';
    expect(() => loadConfig({ CONTACT_ALTCHA_HMAC_KEY: short })).toThrow(ConfigError);
    const message = configProblems({ CONTACT_ALTCHA_HMAC_KEY: short }).join();
    expect(message).toContain('CONTACT_ALTCHA_HMAC_KEY: must be at least 32 characters');
    expect(message).not.toContain(short);
  });

  it('reads OUTBOUND_ALLOW_PORTS as port numbers, none by default, and refuses anything else', () => {
    expect(loadConfig({}).OUTBOUND_ALLOW_PORTS).toEqual([]);
    expect(loadConfig({ OUTBOUND_ALLOW_PORTS: '8443, 9000' }).OUTBOUND_ALLOW_PORTS).toEqual([8443, 9000]);
    expect(configProblems({ OUTBOUND_ALLOW_PORTS: '8443,0' })).toEqual(['OUTBOUND_ALLOW_PORTS: "0" is not a port number (1-65535) (got "8443,0")']);
    expect(configProblems({ OUTBOUND_ALLOW_PORTS: '70000' })).toHaveLength(1);
    expect(configProblems({ OUTBOUND_ALLOW_PORTS: 'http' })).toHaveLength(1);
  });

  it('requires LLM_BASE_URL and LLM_MODEL together', () => {
    expect(configProblems({ LLM_BASE_URL: 'http://127.0.0.1:11434/v1' })[0]).toContain('set both');
    expect(loadConfig({ LLM_BASE_URL: 'http://127.0.0.1:11434/v1', LLM_MODEL: 'llama3' }).LLM_MODEL).toBe('llama3');
  });
});

describe('prepareDatabaseLocation', () => {
  const problemOf = (url: string): string => {
    try {
      prepareDatabaseLocation(url);
    } catch (error) {
      if (error instanceof ConfigError) return error.problems.join();
      throw error;
    }
    return 'no problem';
  };

  it('refuses a SQLite path whose directory is missing, without creating it', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'cfg-')), 'missing');
    expect(problemOf(join(dir, 'site.db'))).toBe(`DATABASE_URL: the directory ${dir} does not exist or cannot be read (ENOENT); create it first`);
  });

  it('fails at once under /proc and /sys instead of spinning in a recursive mkdir', () => {
    expect(problemOf('/proc/x/site.db')).toMatch(/^DATABASE_URL: the directory \/proc\/x does not exist/);
    expect(problemOf('/proc/site.db')).toMatch(/^DATABASE_URL: cannot create or write \/proc\/site.db/);
    expect(problemOf('/sys/site.db')).toMatch(/^DATABASE_URL: cannot (create or )?write/);
  });

  it('refuses a directory in place of the file, or a file in place of the directory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    mkdirSync(join(dir, 'site.db'));
    writeFileSync(join(dir, 'plain'), '');
    expect(problemOf(join(dir, 'site.db'))).toBe(`DATABASE_URL: ${join(dir, 'site.db')} exists and is not a file`);
    expect(problemOf(join(dir, 'plain', 'site.db'))).toBe(`DATABASE_URL: ${join(dir, 'plain')} is not a directory`);
  });

  it('accepts a writable directory, a file: URL, :memory: and PostgreSQL (checked when it connects)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    expect(problemOf(join(dir, 'site.db'))).toBe('no problem');
    expect(problemOf(`file://${join(dir, 'other.db')}`)).toBe('no problem');
    expect(problemOf(':memory:')).toBe('no problem');
    expect(problemOf('postgres://u:p@127.0.0.1:1/nowhere')).toBe('no problem');
  });
});

describe('what astro.config.mjs reads (astro-env.ts)', () => {
  it('builds for SITE_URL, else for the address the server will listen on, by the server\'s rules', () => {
    expect(siteOrigin({})).toBe('http://127.0.0.1:4321');
    expect(siteOrigin({ PORT: '8080' })).toBe('http://127.0.0.1:8080');
    expect(siteOrigin({ HOST: '0.0.0.0', PORT: '8080' })).toBe('http://127.0.0.1:8080');
    expect(siteOrigin({ HOST: '::1' })).toBe('http://[::1]:4321');
    expect(siteOrigin({ SITE_URL: 'https://ads.example.com', PORT: '8080', TRUST_PROXY: 'true' })).toBe('https://ads.example.com');
  });

  it('has `astro dev` listen on PORT and HOST, and leaves every other command alone', () => {
    expect(devServerOptions({ command: 'dev' }, { PORT: '4701', HOST: '0.0.0.0' })).toEqual({ port: 4701, host: '0.0.0.0' });
    expect(devServerOptions({ command: 'dev' }, {})).toEqual({ port: 4321, host: '127.0.0.1' });
    expect(devServerOptions({ command: 'preview' }, { PORT: 'abc' })).toEqual({});
  });
});
