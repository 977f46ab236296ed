// Projects: list, create, show, update (a project is archived, never deleted).
import type { Project, ProjectStatus } from '../../../client/index.ts'
import { type GroupSpec, cents, longText, nullable, text } from '../cli.ts'
import { UsageError } from '../errors.ts'
import { budget, details, table, time } from '../format.ts'

function describe(project: Project): string {
  return details([
    ['Name', project.name],
    ['Id', project.id],
    ['Status', project.status],
    ['Repository', project.repository],
    ['Budget', budget(project.monthly_budget_cents)],
    ['Created', time(project.created_at)],
    ['Description', project.description],
  ])
}

export const projects: GroupSpec = {
  name: 'projects',
  summary: 'Projects: list, create, show, update',
  commands: [
    {
      name: 'list',
      summary: 'List projects',
      async run(cli) {
        const rows = await cli.client.projects.list(await cli.companyId())
        await cli.print(rows, () =>
          table(rows, [
            { header: 'name', value: (p) => p.name },
            { header: 'status', value: (p) => p.status },
            { header: 'repository', value: (p) => p.repository },
            { header: 'budget', value: (p) => budget(p.monthly_budget_cents), right: true },
          ]),
        )
      },
    },
    {
      name: 'create',
      summary: 'Create a project',
      args: ['<name...>'],
      options: [
        { name: 'description', value: 'TEXT', help: 'description' },
        { name: 'repository', value: 'URL', help: 'git repository; runs for its tasks use a worktree of it' },
        { name: 'budget', value: 'CENTS', help: 'monthly budget in cents (informational)' },
      ],
      async run(cli, { args, options }) {
        const project = await cli.client.projects.create(await cli.companyId(), {
          name: args.name!,
          description: await longText(options, 'description'),
          repository: text(options, 'repository'),
          monthly_budget_cents: cents(options, 'budget'),
        })
        await cli.print(project, () => `Created project ${project.name} (${project.id})`)
      },
    },
    {
      name: 'show',
      summary: 'Show a project',
      args: ['<project>'],
      notes: 'PROJECT is a project name or id.',
      async run(cli, { args }) {
        const project = await cli.findProject(args.project!)
        await cli.print(project, () => describe(project))
      },
    },
    {
      name: 'update',
      summary: 'Change fields of a project (archive it with --status archived)',
      args: ['<project>'],
      notes: 'PROJECT is a project name or id.',
      options: [
        { name: 'name', value: 'NAME', help: 'new name' },
        { name: 'description', value: 'TEXT', help: 'description, or none' },
        { name: 'repository', value: 'URL', help: 'git repository, or none' },
        { name: 'budget', value: 'CENTS', help: 'monthly budget in cents' },
        { name: 'status', value: 'STATUS', help: 'active, paused, completed, archived' },
      ],
      async run(cli, { args, options }) {
        const body = {
          name: text(options, 'name'),
          description: await longText(options, 'description'),
          repository: nullable(options, 'repository'),
          monthly_budget_cents: cents(options, 'budget'),
          status: text(options, 'status') as ProjectStatus | undefined,
        }
        if (Object.values(body).every((v) => v === undefined)) throw new UsageError('Nothing to change: give at least one option')
        const project = await cli.client.projects.update(await cli.companyId(), (await cli.findProject(args.project!)).id, body)
        await cli.print(project, () => `Updated project ${project.name}`)
      },
    },
  ],
}
