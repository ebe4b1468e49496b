/**
 * `npm run demo-site`: serves the books fixture site (1000 books on 50 pages) on loopback, for
 * README's walk and for trying Gleaner without the internet. Prints the variables to export.
 */
import { startBooksSite } from "./sites/index.js";

const port = Number(process.env.DEMO_SITE_PORT ?? 8081);
const site = await startBooksSite({ port });
console.log(`Books demo site on ${site.url} (${site.books.length} books on ${site.pageCount} pages).`);
console.log("Gleaner refuses loopback addresses unless told otherwise; start it with:");
console.log("  GLEANER_ALLOW_PRIVATE_TARGETS=127.0.0.1 npm start");
console.log(`SITE=${site.url}`);
const stop = () => void site.close().then(() => process.exit(0));
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
