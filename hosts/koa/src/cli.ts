import { parseArgs } from "node:util";
import { fail } from "./cli/args.js";
import { acceptRun, apiClient, watchRun } from "./cli/watch.js";
import { runExport } from "./cli/export.js";

const usage = `Usage: gleaner <command> [options]

Commands:
  serve [--dev-key]                          serve the API (and run the worker)
  worker                                     consume the run queue only (scale out; no HTTP)
  keys create --owner NAME [--credits N]     create an API key (printed once; on the server's storage)
  keys new [--name N] | keys list | keys revoke KEY_ID
                                             your keys through the API: make one (printed once), list, revoke
  credits grant --owner NAME --amount N      add credits to an owner
  runs start DATASET_ID [--research] [--accept-drift] [--watch]
                                             start a run (through the API); --watch follows it
  runs watch RUN_ID                          follow a run: pages read, records, current URL, outcome
  runs accept RUN_ID                         accept a held run (drift, or credits once topped up)
  datasets delete DATASET_ID [--yes]         delete a dataset with its rows, history and runs
  mcp                                        the Model Context Protocol over stdio, for AI agents
  export DATASET_ID [--format csv|jsonl|parquet] [--as-of N]
                                             stream a dataset's rows to stdout (through the API)
  suggest URL [--question TEXT] [--render browser] [--json]
                                             sources for the page's repeated records, with their rows
  preview FILE.json                          what a run of the source in FILE would get (free)
  help [COMMAND]                             this text (also: --help, COMMAND --help)

Configuration comes from GLEANER_* environment variables (docs/guides/running-and-configuring.md). The runs commands talk to
a running server (so do export, suggest and preview): GLEANER_URL (default http://localhost:8080) and GLEANER_API_KEY.`;

const commandHelp: Record<string, string> = {
  serve:
    "gleaner serve [--dev-key]\n  Serves the API on GLEANER_HOST:GLEANER_PORT and runs the worker. --dev-key prints a key for owner dev (1000 credits).",
  worker:
    "gleaner worker\n  Consumes the run queue without serving HTTP (GLEANER_QUEUE=agenda); start as many as you like.",
  keys:
    "gleaner keys create --owner NAME [--credits N]\n  Creates the owner if needed and an API key, printed once (needs a durable GLEANER_STORAGE).\n" +
    "gleaner keys new [--name N]\ngleaner keys list\ngleaner keys revoke KEY_ID\n" +
    "  Make another key for GLEANER_API_KEY's owner (its secret printed once, alone on stdout), list the owner's\n" +
    "  keys (id, first and last characters, name, last use), or revoke one: the next request with it is refused\n" +
    "  in every process. Through the API: GLEANER_URL and GLEANER_API_KEY.",
  credits: "gleaner credits grant --owner NAME --amount N\n  Adds N credits to the owner's balance.",
  export:
    "gleaner export DATASET_ID [--format csv|jsonl|parquet] [--as-of N]\n" +
    "  Streams the dataset's rows (or the rows as of change-feed sequence N) to stdout through the API.\n" +
    "  Uses GLEANER_URL (default http://localhost:8080) and GLEANER_API_KEY.",
  suggest:
    "gleaner suggest URL [--question TEXT] [--render static|browser] [--json]\n" +
    "  Reads the page once and prints up to five suggested sources for its repeated records, best first: each\n" +
    "  with its first rows, the checks and why it was chosen. --json prints them as POST /v1/datasets bodies.\n" +
    "  Uses GLEANER_URL (default http://localhost:8080) and GLEANER_API_KEY.",
  preview:
    "gleaner preview FILE.json\n" +
    "  FILE holds {source, columns?, pages?} or a whole dataset body. Prints the records a run would read from\n" +
    "  the first pages, each field's fill, the checks, the cost when known and what to fix. Writes and charges\n" +
    "  nothing. Exits 0 when every check passes, 2 otherwise.",
  mcp:
    "gleaner mcp\n" +
    "  Serves Gleaner's tools to an AI agent over stdio (Model Context Protocol): datasets, rows by column name,\n" +
    "  changes, a row's evidence, runs, diagnostics, source suggestions and previews. Talks to a running server:\n" +
    "  GLEANER_URL (default http://localhost:8080) and GLEANER_API_KEY. A server also serves it at /mcp.",
  datasets:
    "gleaner datasets delete DATASET_ID [--yes]\n" +
    "  Deletes the dataset with its rows, change history, runs and the webhooks scoped to it; credits already\n" +
    "  charged stay in the usage ledger. Without --yes it says what would go and exits 2, changing nothing.\n" +
    "  Uses GLEANER_URL (default http://localhost:8080) and GLEANER_API_KEY.",
  runs:
    "gleaner runs start DATASET_ID [--research] [--accept-drift] [--watch]\ngleaner runs watch RUN_ID\n" +
    "gleaner runs accept RUN_ID\n" +
    "  Start a run and/or follow it until it finishes: a progress bar on a terminal, plain lines otherwise;\n" +
    "  then the outcome and each check, and for a held run why it was held. Exits 0 when the run succeeded,\n" +
    "  2 otherwise. --accept-drift accepts the run even when it does not look like the dataset. accept\n" +
    "  accepts a held run's outcome now (charged then), without reading the site again.\n" +
    "  Uses GLEANER_URL (default http://localhost:8080) and GLEANER_API_KEY.",
};

const main = async (argv: string[]): Promise<void> => {
  const [command, sub] = argv;
  if (command === "help" || command === "--help" || command === "-h" || !command) {
    return void console.log((sub && commandHelp[sub]) || usage);
  }
  if (argv.includes("--help") || argv.includes("-h")) return void console.log(commandHelp[command] ?? usage);
  const { values, positionals } = parseArgs({
    args: argv.slice(["keys", "credits", "runs", "datasets", "export"].includes(command) ? 2 : 1),
    options: {
      owner: { type: "string" },
      name: { type: "string" },
      credits: { type: "string" },
      amount: { type: "string" },
      "dev-key": { type: "boolean" },
      research: { type: "boolean" },
      watch: { type: "boolean" },
      "accept-drift": { type: "boolean" },
      format: { type: "string" },
      "as-of": { type: "string" },
      question: { type: "string" },
      render: { type: "string" },
      json: { type: "boolean" },
      yes: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: ["runs", "datasets", "keys", "suggest", "preview"].includes(command),
    strict: true,
  });

  if (command === "serve") return (await import("./cli/server-commands.js")).serve(values["dev-key"] === true);
  if (command === "worker") return (await import("./cli/server-commands.js")).worker();
  if (command === "keys" && (sub === "new" || sub === "list" || sub === "revoke")) {
    const { listKeysCommand, newKeyCommand, revokeKeyCommand } = await import("./cli/keys.js");
    if (sub === "new") return newKeyCommand(apiClient(), values.name);
    if (sub === "list") return listKeysCommand(apiClient());
    return revokeKeyCommand(apiClient(), positionals[0] ?? fail(`keys revoke needs a key id.\n\n${commandHelp.keys}`));
  }
  if (command === "keys" && sub === "create") {
    return (await import("./cli/server-commands.js")).keysCreate(values.owner, values.credits);
  }
  if (command === "credits" && sub === "grant") {
    return (await import("./cli/server-commands.js")).creditsGrant(values.owner, values.amount);
  }
  if (command === "runs" && (sub === "start" || sub === "watch" || sub === "accept")) {
    const id =
      positionals[0] ??
      fail(`runs ${sub} needs ${sub === "start" ? "a dataset id" : "a run id"}.\n\n${commandHelp.runs}`);
    const client = apiClient();
    if (sub === "accept") return void (await acceptRun(client, id));
    let runId = id;
    if (sub === "start") {
      const { data, error } = await client.POST("/v1/datasets/{datasetId}/runs", {
        params: { path: { datasetId: id } },
        body: {
          ...(values.research ? { kind: "research" as const } : {}),
          ...(values["accept-drift"] ? { acceptDrift: true } : {}),
        },
      });
      if (error) return fail(`The run was not started: ${error.error.code}: ${error.error.message}`);
      runId = data.runId;
      console.log(`Run ${runId} queued (balance ${data.creditsRemaining} credits).`);
      if (!values.watch) return;
    }
    const run = await watchRun(client, runId);
    process.exitCode = run.status === "succeeded" ? 0 : 2;
    return;
  }
  if (command === "mcp") {
    const { serveMcpOverStdio } = await import("./mcp/stdio.js");
    return serveMcpOverStdio(apiClient());
  }
  if (command === "datasets" && sub === "delete") {
    const { deleteDatasetCommand } = await import("./cli/datasets.js");
    const id = positionals[0] ?? fail(`datasets delete needs a dataset id.\n\n${commandHelp.datasets}`);
    return deleteDatasetCommand(apiClient(), id, values.yes === true);
  }
  if (command === "suggest" || command === "preview") {
    const { previewCommand, suggestCommand } = await import("./cli/sources.js");
    const target =
      positionals[0] ??
      fail(`${command} needs ${command === "suggest" ? "a URL" : "a JSON file"}.\n\n${commandHelp[command]}`);
    if (command === "preview") return previewCommand(apiClient(), target);
    return suggestCommand(apiClient(), target, {
      question: values.question,
      render: values.render,
      json: values.json === true,
    });
  }
  if (command === "export") {
    const datasetId = sub ?? fail("export needs a dataset id.");
    return runExport({ datasetId, format: values.format, asOf: values["as-of"] });
  }
  fail(`Unknown command: ${argv.join(" ")}\n\n${usage}`);
};

main(process.argv.slice(2)).catch((error: unknown) => {
  fail(error instanceof Error ? error.message : String(error));
});
