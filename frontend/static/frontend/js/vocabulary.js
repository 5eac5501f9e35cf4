// The collection's vocabulary document (docs/method.md section 9) as the editor needs it: types in document
// order (their position is the number key that picks them), attribute groups per type, and which
// relationships may link a subject of one type to an object of another.

export class Vocabulary {
  constructor(document) {
    this.types = Object.keys(document.types);
    this.groupsByType = new Map(this.types.map((t) => [t, document.types[t].attribute_groups || []]));
    this.relationships = document.relationships || [];
    this.byName = new Map(this.relationships.map((r) => [r.name, r]));
  }

  typeIndex(type) {
    return this.types.indexOf(type);
  }

  groups(type) {
    return this.groupsByType.get(type) || [];
  }

  // The group an attribute value belongs to, within a type (values are unique within a type).
  groupOf(type, value) {
    return this.groups(type).find((g) => g.values.includes(value));
  }

  // The values of `attributes` that exist for `type`, in the vocabulary's order: what survives a type change.
  keep(type, attributes) {
    const wanted = new Set(attributes);
    return this.groups(type).flatMap((g) => g.values.filter((v) => wanted.has(v)));
  }

  // Mirrors kernel.vocabulary.RelationshipType.allows: a symmetric relationship holds either way round.
  allows(relationship, subjectType, objectType) {
    const r = typeof relationship === "string" ? this.byName.get(relationship) : relationship;
    if (!r) return false;
    if (r.subject_types.includes(subjectType) && r.object_types.includes(objectType)) return true;
    return Boolean(r.symmetric) && r.object_types.includes(subjectType) && r.subject_types.includes(objectType);
  }

  allowedBetween(subjectType, objectType) {
    return this.relationships.filter((r) => this.allows(r, subjectType, objectType));
  }

  isSymmetric(name) {
    return Boolean(this.byName.get(name)?.symmetric);
  }
}
