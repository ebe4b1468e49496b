import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";

export interface Spawned {
  readonly child: ChildProcess;
  /** What `ready` matched on stdout. */
  readonly match: RegExpExecArray;
  readonly stdout: () => string;
  readonly stderr: () => string;
}

/** Starts `node args` and resolves once its stdout matches `ready`; rejects with its stderr if it exits first. */
export const spawnUntil = async (args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<Spawned> => {
  const child = spawn(process.execPath, args, { env });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += String(chunk);
  });
  child.stderr?.on("data", (chunk) => {
    stderr += String(chunk);
  });
  for (;;) {
    const match = ready.exec(stdout);
    if (match) return { child, match, stdout: () => stdout, stderr: () => stderr };
    if (child.exitCode !== null) throw new Error(`${args.join(" ")} exited: ${stderr}`);
    await Promise.race([once(child.stdout, "data"), once(child, "exit")]);
  }
};

/** Stops a child started by spawnUntil and waits until it has exited. */
export const stopChild = async (child: ChildProcess | undefined): Promise<void> => {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  await once(child, "exit");
};
