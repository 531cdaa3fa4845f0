export * from "./official-clients";
export * from "./one-create-fetch";
