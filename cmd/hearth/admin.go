package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"hearth/internal/cli"
	"hearth/models"
)

func dataFlag(fs *flag.FlagSet) *string {
	return fs.String("data", cli.EnvOr("HEARTH_DATA", "./data"), "data directory (HEARTH_DATA)")
}

// openStore opens the data dir for an admin command; it never upgrades a live schema.
func openStore(dir string) (*models.Store, error) {
	return models.OpenExisting(context.Background(), dir, models.Options{})
}

func cmdOwner(args []string) error {
	if len(args) == 0 || (args[0] != "passwd" && args[0] != "logout-all") {
		return cli.UsageError("owner: want passwd or logout-all")
	}
	fs := flag.NewFlagSet("owner "+args[0], flag.ContinueOnError)
	dir := dataFlag(fs)
	if err := cli.ParseFlags(fs, args[1:]); err != nil {
		return err
	}
	store, err := openStore(*dir)
	if err != nil {
		return err
	}
	defer store.Close()
	ctx := context.Background()
	switch args[0] {
	case "passwd":
		pass, err := readPassphrase(os.Stdin)
		if err != nil {
			return err
		}
		if err := store.SetOwnerPassphrase(ctx, pass); err != nil {
			return err
		}
		cli.Printf(os.Stdout, "Passphrase set; every owner session was logged out.\n")
	case "logout-all":
		n, err := store.LogoutAll(ctx)
		if err != nil {
			return err
		}
		cli.Printf(os.Stdout, "Ended %d owner session(s).\n", n)
	}
	return nil
}

// readPassphrase reads the first line of r, so `echo pass | hearth owner passwd` works.
func readPassphrase(r io.Reader) (string, error) {
	line, err := bufio.NewReader(io.LimitReader(r, 1024)).ReadString('\n')
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("read passphrase: %w", err)
	}
	pass := strings.TrimRight(line, "\r\n")
	if pass == "" {
		return "", fmt.Errorf("owner passwd: empty passphrase on stdin")
	}
	return pass, nil
}

func cmdToken(args []string) error {
	// The subcommand is checked before the data dir is opened, so a typo creates nothing.
	if len(args) == 0 || (args[0] != "create" && args[0] != "list" && args[0] != "revoke") {
		return cli.UsageError("token: want create, list or revoke")
	}
	fs := flag.NewFlagSet("token "+args[0], flag.ContinueOnError)
	dir := dataFlag(fs)
	name := fs.String("name", "", "credential name (create)")
	scopes := fs.String("scopes", strings.Join(models.DefaultScopes, ","), "comma-separated scopes (create): "+strings.Join(models.AllScopes, ", "))
	rest, err := cli.ParseInterspersed(fs, args[1:])
	if err != nil {
		return err
	}
	// Every argument is checked before the data dir is opened, which would create it.
	switch args[0] {
	case "create":
		if *name == "" {
			return cli.UsageError("token create: want --name N")
		}
		if err := models.ValidateCredential(*name, strings.Split(*scopes, ",")); err != nil {
			return cli.UsageError("token create: %v", err)
		}
		if err := cli.NoArgs(rest); err != nil {
			return err
		}
	case "list":
		if err := cli.NoArgs(rest); err != nil {
			return err
		}
	case "revoke":
		if len(rest) != 1 {
			return cli.UsageError("token revoke: want one ID or name")
		}
	}
	store, err := openStore(*dir)
	if err != nil {
		return err
	}
	defer store.Close()
	ctx := context.Background()
	switch args[0] {
	case "create":
		cred, token, err := store.CreateCredential(ctx, *name, strings.Split(*scopes, ","))
		if err != nil {
			return err
		}
		cli.Printf(os.Stderr, "Created %s (%s) with scopes %s. The token is shown once:\n", cred.ID, cred.Name, cred.Scopes)
		cli.Printf(os.Stdout, "%s\n", token)
	case "list":
		creds, err := store.Credentials(ctx)
		if err != nil {
			return err
		}
		w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
		cli.Printf(w, "ID\tNAME\tSCOPES\tCREATED\tSTATUS\n")
		for _, c := range creds {
			status := "active"
			if c.RevokedAt != nil {
				status = "revoked " + c.RevokedAt.Format(time.RFC3339)
			}
			cli.Printf(w, "%s\t%s\t%s\t%s\t%s\n", c.ID, c.Name, c.Scopes, c.CreatedAt.Format(time.RFC3339), status)
		}
		return w.Flush()
	case "revoke":
		cred, err := store.RevokeCredential(ctx, rest[0])
		if err != nil {
			return err
		}
		cli.Printf(os.Stdout, "Revoked %s (%s).\n", cred.ID, cred.Name)
	}
	return nil
}

func cmdBackup(args []string) error {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	dir := dataFlag(fs)
	rest, err := cli.ParseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return cli.UsageError("backup: want one destination FILE")
	}
	store, err := openStore(*dir)
	if err != nil {
		return err
	}
	defer store.Close()
	d, err := store.VerifiedBackup(context.Background(), rest[0])
	if err != nil {
		return err
	}
	rep := d.Report
	cli.Printf(os.Stdout, "Backed up %s to %s (integrity_check ok, %d receipts match the live database) and %d schedule definition files to %s.\n",
		store.Path(), rest[0], d.Receipts, rep.DefinitionFiles, rep.SchedulesDir)
	for _, s := range rep.Skipped {
		cli.Printf(os.Stderr, "hearth: not copied (not a regular file): %s\n", s)
	}
	return nil
}

// cmdMigrate applies pending migrations, the one command that upgrades an
// existing database besides serve. Run it with the server stopped.
func cmdMigrate(args []string) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	dir := dataFlag(fs)
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	from, to, err := models.Migrate(context.Background(), *dir)
	if err != nil {
		return err
	}
	if from == to {
		cli.Printf(os.Stdout, "%s is already at version %d.\n", models.DatabasePath(*dir), to)
		return nil
	}
	cli.Printf(os.Stdout, "Migrated %s from version %d to %d.\n", models.DatabasePath(*dir), from, to)
	return nil
}
