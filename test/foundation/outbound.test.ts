// The one check of addresses someone else chose (webhooks, http agents), against real sockets:
// a local listener stands for what sits next to the server, a resolver stub for a name whose
// answer changes between the check and the connection (DNS rebinding).
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isPrivateAddress, outboundFetch, refusedBecause, targetProblem, urlAllowed, type Resolver } from '../../src/server/outbound.ts'

let listener: http.Server
let port: number
let received = 0
beforeAll(async () => {
  listener = http.createServer((_req, res) => {
    received++
    res.writeHead(302, { location: `http://127.0.0.1:${port}/latest/meta-data/` }).end()
  })
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  port = (listener.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())))

/** Answers a public address the first time and loopback ever after. */
function rebinding(): Resolver & { calls: number } {
  const resolver = Object.assign(async (_host: string) => {
    resolver.calls++
    return resolver.calls === 1 ? [{ address: '93.184.215.14', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]
  }, { calls: 0 })
  return resolver
}

describe('outbound addresses', () => {
  it('refuses loopback, private, link-local and the IPv6 forms that hide them', () => {
    for (const address of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
      '::1', '::', '::127.0.0.1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe', '2002:7f00:1::1', '64:ff9b::7f00:1',
      '64:ff9b:1::a00:1', 'fec0::1', 'fe80::1', 'fc00::1', 'fd12:3456::1', '2001:0:4136:e378::1', 'ff02::1']) {
      expect(isPrivateAddress(address), address).toBe(true)
    }
    for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700::1111', '2a00:1450:4001::200e']) expect(isPrivateAddress(address), address).toBe(false)
  })

  it('checks the address on the connection actually made: a rebinding name reaches nothing', async () => {
    const guard = { hint: 'allow it elsewhere', resolve: rebinding() }
    // The check when the target is saved sees the public answer...
    expect(await targetProblem(`http://rebind.test:${port}/hook`, guard)).toBeNull()
    // ...and the connection, resolving again, gets loopback and is refused before a byte is sent.
    const err = await outboundFetch(`http://rebind.test:${port}/hook`, { method: 'POST', body: 'x' }, guard).catch((e) => e)
    expect(refusedBecause(err)?.message).toBe('rebind.test (127.0.0.1) is a loopback or private address, which is refused; allow it elsewhere')
    expect(received).toBe(0)
  })

  it('refuses IP literals, the bracketed IPv6 forms included, without connecting', async () => {
    const guard = { hint: 'no' }
    for (const url of [`http://127.0.0.1:${port}/`, `http://[::127.0.0.1]:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`, 'http://[2002:7f00:1::]/', 'http://[64:ff9b:1::7f00:1]/', 'http://[fec0::1]/']) {
      const err = await outboundFetch(url, { method: 'POST' }, guard).catch((e) => e)
      expect(refusedBecause(err), url).not.toBeNull()
      expect(await targetProblem(url, guard), url).toMatch(/loopback or private address/)
    }
    expect(received).toBe(0)
  })

  it('follows no redirect, and without a guard reaches a private address', async () => {
    const answer = await outboundFetch(`http://127.0.0.1:${port}/start`, { method: 'POST' }, null)
    expect(answer.status).toBe(302)
    expect(answer.headers.get('location')).toBe(`http://127.0.0.1:${port}/latest/meta-data/`)
    expect(received).toBe(1)
  })

  it('matches the operator\'s URL patterns on the whole URL', () => {
    expect(urlAllowed('http://127.0.0.1:8080/run', ['http://127.0.0.1:8080/*'])).toBe(true)
    expect(urlAllowed('http://127.0.0.1:8081/run', ['http://127.0.0.1:8080/*'])).toBe(false)
    expect(urlAllowed('http://127.0.0.1:8080.evil.test/run', ['http://127.0.0.1:8080/*'])).toBe(false)
    expect(urlAllowed('http://evil.test/?.internal/', ['http://*.internal/*'])).toBe(false)
    expect(urlAllowed('http://evil.test@a.internal/', ['http://*.internal/*'])).toBe(false)
    expect(urlAllowed('http://x.agents.internal/a', ['http://*.internal/*'])).toBe(true)
  })
})
