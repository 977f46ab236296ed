import { type Static, Type } from 'typebox'
import { OrNull } from './common.ts'

// The service itself: `GET /` and `GET /health`.

export const ServiceInfo = Type.Object({
  service: Type.String(),
  version: Type.String(),
  environment: Type.String(),
  /** `/docs` when DEBUG=true, else null. */
  docs: OrNull(Type.String()),
})
export type ServiceInfo = Static<typeof ServiceInfo>

/** The one answer outside the error envelope: 503 carries it too, with `database` saying why. */
export const Health = Type.Object({
  status: Type.Unsafe<'healthy' | 'unhealthy'>({ type: 'string', enum: ['healthy', 'unhealthy'] }),
  service: Type.String(),
  version: Type.String(),
  environment: Type.String(),
  /** Seconds since the epoch. */
  timestamp: Type.Number(),
  database: Type.Optional(Type.String()),
})
export type Health = Static<typeof Health>

export const Status = Type.Object({ status: Type.String() })
