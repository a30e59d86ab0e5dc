/** The administration's file data store (theme, logo, background, generic). (Skeleton: a helper fills it in.) */
export interface DataStoreDeps {
  dataDir: string;
}

export class DataStore {
  private constructor(readonly deps: DataStoreDeps) {}

  static async open(deps: DataStoreDeps): Promise<DataStore> {
    return new DataStore(deps);
  }
}
