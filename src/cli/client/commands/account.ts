// Signing in and out, who am I, and personal API keys.
import { ApiError } from '../../../client/index.ts'
import { type CommandSpec, type GroupSpec, flag, integer, text } from '../cli.ts'
import { details, table, time } from '../format.ts'
import { ask, askHidden, readStdin } from '../prompt.ts'

export const login: CommandSpec = {
  name: 'login',
  summary: 'Sign in with email and password; the session is kept in the config file',
  options: [
    { name: 'email', value: 'EMAIL', help: 'the account email (prompted when absent)' },
    { name: 'password-stdin', help: 'read the password from standard input (for scripts)' },
  ],
  notes: 'The server address is remembered as the default for later commands.',
  async run(cli, { options }) {
    const email = text(options, 'email') ?? (await ask('Email: '))
    const password = flag(options, 'password-stdin') ? await readStdin() : await askHidden('Password: ')
    const session = await cli.client.auth.login(email, password)
    cli.config.update(
      cli.url,
      { access_token: session.access_token, refresh_token: session.refresh_token, email: session.user.email },
      { makeDefault: true },
    )
    // The current company is kept only if this account is a member (another account may have
    // signed in here before); someone with exactly one company needs no `companies use` step.
    const companies = await cli.client.companies.list()
    if (!companies.some((c) => c.id === cli.config.profile(cli.url).company_id)) {
      const only = companies.length === 1 ? companies[0] : null
      cli.config.update(cli.url, { company_id: only?.id, company_name: only?.name })
    }
    const company = cli.config.profile(cli.url).company_name
    await cli.print({ url: cli.url, user: session.user, company_id: cli.config.profile(cli.url).company_id ?? null }, () =>
      [`Logged in to ${cli.url} as ${session.user.name} <${session.user.email}>`, company ? `Current company: ${company}` : '']
        .filter(Boolean)
        .join('\n'),
    )
  },
}

export const logout: CommandSpec = {
  name: 'logout',
  summary: 'End this session on the server and forget its tokens',
  options: [{ name: 'everywhere', help: 'end every session of the account, on every device' }],
  async run(cli, { options }) {
    const profile = cli.config.profile(cli.url)
    const hadSession = Boolean(profile.access_token)
    if (hadSession) {
      // The stored session is the one ending, even when SHOPFLOOR_API_KEY is set.
      cli.client.useCredentials({ accessToken: profile.access_token!, refreshToken: profile.refresh_token ?? null })
      try {
        await cli.client.auth.logout({ everywhere: flag(options, 'everywhere') })
      } catch (error) {
        // An expired session is over anyway; the tokens are forgotten below all the same.
        if (!(error instanceof ApiError && error.status === 401)) throw error
      }
    }
    cli.config.update(cli.url, { access_token: undefined, refresh_token: undefined })
    await cli.print({ logged_out: hadSession }, () => (hadSession ? `Logged out of ${cli.url}` : `Not logged in to ${cli.url}`))
  },
}

export const whoami: CommandSpec = {
  name: 'whoami',
  summary: 'Show the signed-in account, the server and the current company',
  async run(cli) {
    const user = await cli.client.me.get()
    const profile = cli.config.profile(cli.url)
    await cli.print({ ...user, url: cli.url, via: cli.via, company_id: profile.company_id ?? null }, () =>
      details([
        ['Name', user.name],
        ['Email', user.email],
        ['User id', user.id],
        ['Server', cli.url],
        ['Signed in with', cli.via === 'key' ? 'API key (SHOPFLOOR_API_KEY)' : 'password session'],
        ['Company', profile.company_name ? `${profile.company_name} (${profile.company_id})` : profile.company_id],
      ]),
    )
  },
}

export const keys: GroupSpec = {
  name: 'keys',
  summary: 'Personal API keys for unattended use (SHOPFLOOR_API_KEY)',
  commands: [
    {
      name: 'list',
      summary: 'List active API keys',
      async run(cli) {
        const rows = await cli.client.apiKeys.list()
        await cli.print(rows, () =>
          table(rows, [
            { header: 'id', value: (k) => k.id },
            { header: 'name', value: (k) => k.name },
            { header: 'prefix', value: (k) => k.prefix },
            { header: 'created', value: (k) => time(k.created_at) },
            { header: 'last used', value: (k) => time(k.last_used) },
            { header: 'expires', value: (k) => time(k.expires_at) },
            { header: 'company', value: (k) => k.company_id ?? 'all' },
          ]),
        )
      },
    },
    {
      name: 'create',
      summary: 'Create an API key; the secret is shown once',
      args: ['<name...>'],
      options: [{ name: 'expires-in-days', value: 'DAYS', help: 'expiry, 1 to 3650 days (default: never)' }],
      notes:
        'Needs a password session (an API key cannot create keys). With --company the key acts in that company only ' +
        '(every other answers as if it did not exist): make a runner\'s key this way.',
      async run(cli, { args, options }) {
        // Only a --company on this command line limits the key; the current company does not.
        const company = cli.companyGiven ? await cli.findCompany(await cli.companyId()) : null
        const key = await cli.client.apiKeys.create({
          name: args.name!,
          expires_in_days: integer(options, 'expires-in-days'),
          ...(company ? { company_id: company.id } : {}),
        })
        const scope = company ? ` for ${company.name} only` : ''
        await cli.print(key, () => `Created API key "${key.name}" (${key.id})${scope}. Store it now, it is not shown again:\n${key.key}`)
      },
    },
    {
      name: 'revoke',
      summary: 'Revoke an API key',
      args: ['<key-id>'],
      confirm: (a) => `Revoke API key ${a['key-id']}? Whatever uses it stops working`,
      async run(cli, { args }) {
        await cli.client.apiKeys.revoke(args['key-id']!)
        await cli.print({ revoked: args['key-id'] }, () => `Revoked API key ${args['key-id']}`)
      },
    },
  ],
}
