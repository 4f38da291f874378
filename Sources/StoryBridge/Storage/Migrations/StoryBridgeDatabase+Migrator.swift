import GRDB

/// The schema's versions, in the order they apply. Each migration's tables are described in the
/// file of its own beside this one; a new version is registered here, last, and never edited once
/// released (GRDB's migrator records which ran).
extension StoryBridgeDatabase {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-catalog", migrate: CatalogSchema.create)
        migrator.registerMigration("v2-analytics", migrate: AnalyticsSchema.create)
        migrator.registerMigration("v3-tables", migrate: TablesSchema.create)
        migrator.registerMigration("v4-deeplinks", migrate: DeepLinkSchema.create)
        migrator.registerMigration("v5-sync", migrate: SyncCatalogSchema.create)
        migrator.registerMigration("v6-lifetime", migrate: LifetimeSchema.create)
        migrator.registerMigration("v7-outbox-totals", migrate: OutboxTotalsSchema.create)
        migrator.registerMigration("v8-session-lookup", migrate: AnalyticsSchema.addUnfinishedSessionIndex)
        migrator.registerMigration("v9-sync-guards", migrate: SyncCatalogSchema.addGuards)
        migrator.registerMigration("v10-story-context", migrate: StoryContextSchema.create)
        migrator.registerMigration("v11-revisions", migrate: RevisionSchema.create)
        migrator.registerMigration("v12-history-package-size", migrate: RevisionSchema.addPackageSize)
        migrator.registerMigration("v13-crm", migrate: CRMSchema.create)
        migrator.registerMigration("v14-catalog-dialect", migrate: DialectCatalogSchema.addDialect)
        migrator.registerMigration("v15-trust", migrate: TrustSchema.create)
        migrator.registerMigration("v16-oce-state", migrate: OceStateSchema.create)
        migrator.registerMigration("v17-kept-dialect", migrate: KeptDialectSchema.addDialect)
        migrator.registerMigration("v18-audit", migrate: AuditSchema.create)
        migrator.registerMigration("v19-audit-checkpoints", migrate: AuditCheckpointSchema.create)
        migrator.registerMigration("v20-audit-rowid", migrate: AuditRowidSchema.migrate)
        migrator.registerMigration("v21-trust-manifests", migrate: TrustManifestSchema.migrate)
        return migrator
    }
}
