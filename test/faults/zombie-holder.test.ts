// A dead holder never blocks a restart on the embedded database: a server killed with kill -9
// whose parent has not reaped it yet is a zombie, which kill(pid, 0) still finds; restarted at
// once on the same DATA_DIR, the new server must start. A lock whose process id was given to
// another process since is no lock either.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { lockFolder } from '../../src/server/db/pglite.ts'
import { embeddedDataDir } from '../databases.ts'
import { BIN, freePort, ROOT, type ServerProcess, startServer, tempDir } from '../server-process.ts'

const state = (pid: number) => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]
  } catch {
    return null
  }
}

let keeper: ReturnType<typeof spawn> | null = null
let restarted: ServerProcess | null = null
afterAll(async () => {
  await restarted?.stop()
  keeper?.kill('SIGKILL')
})

describe('the embedded database after kill -9', () => {
  it('restarts at once on the same DATA_DIR while the killed server is a zombie', async () => {
    const dataDir = embeddedDataDir()
    const port = await freePort()
    // `sh` starts the server, prints its id and becomes `sleep`, which never reaps it.
    keeper = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" serve >/dev/null 2>&1 & echo $!; exec sleep 300`], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', SCHEDULER: 'off', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    const pid = await new Promise<number>((resolve) => keeper!.stdout!.once('data', (d) => resolve(Number(String(d).trim()))))
    const deadline = Date.now() + 120_000
    while (!(await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status === 200, () => false))) {
      if (Date.now() > deadline) throw new Error('the first server did not start')
      await new Promise((r) => setTimeout(r, 200))
    }
    expect(fs.readFileSync(path.join(dataDir, 'shopfloor.lock'), 'utf8')).toMatch(new RegExp(`^${pid}\\b`))

    process.kill(pid, 'SIGKILL')
    while (state(pid) !== 'Z') await new Promise((r) => setTimeout(r, 20))
    restarted = await startServer({ DATA_DIR: dataDir }, { timeoutMs: 120_000 })
    expect((await fetch(`${restarted.url}/health`)).status).toBe(200)
  })

  it('takes a lock whose process id now belongs to another process', () => {
    const dir = tempDir()
    // Our parent is alive, but started at another time than the lock says.
    fs.writeFileSync(path.join(dir, 'shopfloor.lock'), `${process.ppid} 1`)
    const release = lockFolder(dir)
    expect(fs.readFileSync(path.join(dir, 'shopfloor.lock'), 'utf8')).toMatch(new RegExp(`^${process.pid} \\d+$`))
    release()
    // A live holder that is who the lock says still refuses.
    const stat = fs.readFileSync(`/proc/${process.ppid}/stat`, 'utf8')
    fs.writeFileSync(path.join(dir, 'shopfloor.lock'), `${process.ppid} ${stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]}`)
    expect(() => lockFolder(dir)).toThrow(/is in use by process/)
  })
})
