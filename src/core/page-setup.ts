/** A page and its margins, in millimetres: what the converter hands to every engine that lays out pages. */
export interface PageSetup {
  width: number;
  height: number;
  marginTop: number;
  marginRight: number;
  marginBottom: number;
  marginLeft: number;
}
