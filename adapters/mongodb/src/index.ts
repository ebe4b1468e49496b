export { type MongoConfig, MongoStoreLive } from "./layer.js";
export { collectionIndexes, indexNames } from "./schema.js";
