/**
 * Which served ids count as a running job's model, when its endpoint comes back
 * or changes under it: a menu entry whose served_name is a glob accepts every id
 * it matches (one model's quantisations, say); otherwise only the id the job started on.
 */
import { globMatcher, isGlob } from '../../registry/match.js';

export function sameModelRule(servedModel: string, servedName: string | undefined): (id: string) => boolean {
  if (servedName !== undefined && isGlob(servedName)) return globMatcher(servedName);
  return (id) => id === servedModel;
}
