import { fail } from "./args.js";
import type { GleanerClient } from "@gleaner/client";

/**
 * `gleaner datasets delete ID [--yes]`: without --yes it says what would go and changes nothing, so
 * a dataset is never deleted by a mistyped command alone.
 */
export const deleteDatasetCommand = async (
  client: GleanerClient,
  datasetId: string,
  confirmed: boolean,
  out: NodeJS.WriteStream = process.stdout,
) => {
  const found = await client.GET("/v1/datasets/{datasetId}", { params: { path: { datasetId } } });
  if (found.error) return fail(`The dataset was not deleted: ${found.error.error.code}: ${found.error.error.message}`);
  const { name, rowCount } = found.data.dataset;
  if (!confirmed) {
    out.write(
      `This deletes "${name}" (${datasetId}) with its ${rowCount} rows, their history, its runs and the webhooks ` +
        "scoped to it. Credits already charged stay in the usage ledger. Run again with --yes to delete it.\n",
    );
    process.exitCode = 2;
    return;
  }
  const { error } = await client.DELETE("/v1/datasets/{datasetId}", { params: { path: { datasetId } } });
  if (error) return fail(`The dataset was not deleted: ${error.error.code}: ${error.error.message}`);
  out.write(`Deleted "${name}" (${datasetId}).\n`);
};
