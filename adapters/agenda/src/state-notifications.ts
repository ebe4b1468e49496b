import type { AgendaBackend, NotificationChannel } from "agenda";

/** The parts of a channel that carry job state events (start, success, complete, …) between processes. */
const stateParts = new Set<PropertyKey>(["publishState", "subscribeState"]);

/**
 * The backend with a notification channel that announces new jobs (NOTIFY, so a worker takes one
 * at once) but no job state events. Agenda 6 publishes a job's start, success and complete to every
 * process listening (three NOTIFY statements per job, each parsed by every process) so that
 * `agenda.on("success")` fires across processes; Gleaner listens to none of them from another
 * process (InFlight and skipSaveBeforeRemove hear their own process's events), so a run job costs
 * three statements less (decision 0042). Agenda publishes and subscribes only when the channel has
 * publishState / subscribeState, so the channel answers neither.
 */
export const withoutStateNotifications = (backend: AgendaBackend): AgendaBackend => {
  const channel = backend.notificationChannel;
  if (!channel) return backend;
  const jobsOnly = new Proxy(channel, {
    get: (target, property) => {
      if (stateParts.has(property)) return undefined;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
    has: (target, property) => !stateParts.has(property) && Reflect.has(target, property),
  }) as NotificationChannel;
  return {
    name: backend.name,
    repository: backend.repository,
    notificationChannel: jobsOnly,
    logger: backend.logger,
    ownsConnection: backend.ownsConnection,
    connect: () => backend.connect(),
    disconnect: () => backend.disconnect(),
  };
};
