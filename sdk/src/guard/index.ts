export * from "./official-clients.js";
export * from "./one-create-fetch.js";
