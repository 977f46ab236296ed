// A project's `repository`: the address a runner clones. It reaches `git clone` on machines the
// company does not own, so only plain remote addresses pass: `https://`, `ssh://` and the scp
// form `user@host:path`. A `file://` address reads the runner's own disk and is accepted only
// where the operator allowed local repositories (the server's ALLOW_LOCAL_REPOSITORIES, the
// runner's --allow-local-repositories). Nothing that git could read as an option (a leading
// `-`, anywhere a host or path starts), no whitespace or control characters, no other scheme
// (`ext::`, `git://`, `http://`, helpers).

export const REPOSITORY_MAX_CHARS = 500

const SCP_FORM = /^[A-Za-z0-9._~+-]+@([A-Za-z0-9][A-Za-z0-9.-]*):([^-/:][^:]*|\/[^:]*)$/

/** Why `address` is not a repository a runner may clone, or null when it is. */
export function repositoryProblem(address: string, allowLocal: boolean): string | null {
  if (address.length > REPOSITORY_MAX_CHARS) return `must be at most ${REPOSITORY_MAX_CHARS} characters`
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f]/.test(address)) return 'must not contain spaces or control characters'
  if (address.startsWith('-')) return 'must be an address, not an option'
  const local = 'file:// addresses are not allowed here (the server and the runner must allow local repositories)'
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(address)) {
    let url: URL
    try {
      url = new URL(address)
    } catch {
      return 'must be a valid address'
    }
    if (url.protocol === 'file:') {
      if (!allowLocal) return local
      return url.host === '' && url.pathname.length > 1 ? null : 'a file:// address must be file:///absolute/path'
    }
    if (url.protocol !== 'https:' && url.protocol !== 'ssh:') return 'must start with https:// or ssh:// (or be user@host:path)'
    if (!url.hostname || url.hostname.startsWith('-') || decodeURIComponent(url.username).startsWith('-')) return 'must name a host'
    if (url.pathname.length <= 1) return 'must name a repository after the host'
    return null
  }
  const scp = SCP_FORM.exec(address)
  if (!scp || scp[1].startsWith('-')) return 'must be https://host/path, ssh://host/path or user@host:path'
  return null
}

/** Whether a runner reads `address` from its own disk (file://). */
export function isLocalRepository(address: string): boolean {
  return /^file:\/\//i.test(address)
}
