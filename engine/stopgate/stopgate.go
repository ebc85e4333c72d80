// Package stopgate judges the stop, post-tool and pre-edit events natively
// (issue 6 items 2-5): at stop, the prose-question check and the checkpoint
// (engine/checkpoint) run on every pass and one deny lists every failing
// check; a repeated pass never denies again (the loop bound). The dispatcher
// (engine/hook) builds the inputs from the client payload, sets the event's
// budget as the context deadline and encodes the verdict in the client's
// dialect.
package stopgate

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hookwarden/hookwarden/engine/checkpoint"
	"github.com/hookwarden/hookwarden/protocol/verdict"
)

// Rule ids carried in Verdict.RuleID. A deny that fails several checks
// carries their ids joined with "," in the order below.
const (
	// RuleProseQuestion: the final message closes by asking the user in prose.
	RuleProseQuestion = "stop-prose-question"
	// RuleCheckpointDue: a checkpoint is due (stop: deny or halt; pre-edit:
	// the edit is outside the repository or the current change set).
	RuleCheckpointDue = "checkpoint-due"
	// RuleCheckpointUnavailable: the checkpoint could not be evaluated (git
	// failed or the event's budget ran out) at stop or pre-edit.
	RuleCheckpointUnavailable = "checkpoint-unavailable"
	// RuleInvalidInput: the payload lacks what the judgement needs (pre-edit
	// without a file path while a checkpoint is due).
	RuleInvalidInput = verdict.RuleInvalidInput
)

// SkipEmptyMessage is the stated skip's reason when the stop payload has no
// last assistant message, so only the checkpoint is judged: always so for
// clients whose stop payload carries none (Copilot CLI agentStop, Cursor
// stop, agy Stop). When it is the whole reason, the checkpoint was judged
// and found not due (adopt/doctor counts such a stop as judged).
const SkipEmptyMessage = "the last assistant message is empty: question check skipped"

// StopInput is one stop call (Claude Stop, Codex Stop, Gemini AfterAgent,
// agy Stop).
//
// Client is the client name as in protocol/registration (claude, codex,
// gemini, agy; any other name gets advice without a tool name). Cwd is the
// session's absolute working directory: it decides which checkout is judged,
// so a linked worktree is judged on its own; when empty, RepoRoot (the
// governed repository's absolute root) is used. LastMessage is the final
// assistant message (Claude and Codex last_assistant_message, Gemini
// prompt_response). Repeated is true on a pass that follows our own deny
// (Claude, Codex and Gemini stop_hook_active true, ../shared/e2e/README.md
// sections 1-3; agy executionNum above 1, issue 6). Config is the
// repository's checkpoint policy. Refresh, when not nil, renews a cached
// status about to expire in the background (checkpoint.Refresher).
type StopInput struct {
	Client      string
	Cwd         string
	RepoRoot    string
	LastMessage string
	Repeated    bool
	Config      checkpoint.Config
	Refresh     checkpoint.Refresher
}

// JudgeStop runs both stop checks and returns one verdict:
//
//   - Deny (first pass) when the final message closes with a prose question
//     (RuleProseQuestion; the reason names the client's question tool), when
//     a checkpoint is due (RuleCheckpointDue; the reason gives the
//     checkpoint's reason and actions), or when the checkpoint could not be
//     evaluated, e.g. git outlived ctx (RuleCheckpointUnavailable). One deny
//     lists every failing check.
//   - Halt (repeated pass) when a checkpoint is still due: the session ends
//     cleanly with the reason shown to the user instead of a second deny.
//   - Skip when a check could not run and nothing is denied: an empty
//     message (question check), a repeated pass (question check; a failed
//     checkpoint evaluation), a cwd outside any git work tree or no git on
//     PATH (checkpoint).
//   - Allow otherwise.
//
// Every reason is capped with verdict.Cap and never quotes the message.
func JudgeStop(ctx context.Context, in StopInput) verdict.Verdict {
	var ids, denies, skips []string
	switch {
	case in.Repeated:
		skips = append(skips, "question check skipped on a repeated stop pass (loop bound: the first pass already judged it)")
	case strings.TrimSpace(in.LastMessage) == "":
		skips = append(skips, SkipEmptyMessage)
	case proseQuestion(in.LastMessage):
		ids = append(ids, RuleProseQuestion)
		denies = append(denies, RuleProseQuestion+": your closing paragraph asks the user a question in prose. "+questionAdvice(in.Client))
	}

	res, err := evaluate(ctx, in.Cwd, in.RepoRoot, in.Config, true, checkpoint.EvaluateCachedWith(in.Refresh))
	switch {
	case unjudgeable(err) != "":
		skips = append(skips, unjudgeable(err))
	case err != nil && in.Repeated:
		skips = append(skips, "checkpoint could not be evaluated on the repeated stop pass: "+err.Error())
	case err != nil:
		ids = append(ids, RuleCheckpointUnavailable)
		denies = append(denies, RuleCheckpointUnavailable+": the checkpoint could not be evaluated ("+err.Error()+
			"). Check `git status` yourself and commit finished work in a reviewable batch before you stop.")
	case res.Due && in.Repeated:
		return verdict.Verdict{Kind: verdict.Halt, RuleID: RuleCheckpointDue, Reason: verdict.Cap(
			"hookwarden halted the session: a checkpoint is still due after the stop gate asked once (" +
				res.Reason + "). " + res.Actions())}
	case res.Due:
		ids = append(ids, RuleCheckpointDue)
		denies = append(denies, RuleCheckpointDue+": a checkpoint is due ("+res.Reason+"). "+res.Actions())
	}

	if len(denies) > 0 {
		return verdict.Verdict{Kind: verdict.Deny, RuleID: strings.Join(ids, ","), Reason: verdict.Cap(strings.Join(denies, "\n\n"))}
	}
	if len(skips) > 0 {
		return verdict.Verdict{Kind: verdict.Skip, Reason: verdict.Cap(strings.Join(skips, "; "))}
	}
	return verdict.Verdict{Kind: verdict.Allow}
}

// PostToolInput is one post-tool call (Claude and Codex PostToolUse, Gemini
// AfterTool). Client, Cwd, RepoRoot, Config and Refresh mean what they mean
// in StopInput.
//
// EditedFile is the file the tool edited when it is one of the client's
// edit tools (the tools its pre-edit row matches), "" otherwise (a shell
// command, or a client without a pre-edit row).
type PostToolInput struct {
	Client     string
	Cwd        string
	RepoRoot   string
	Config     checkpoint.Config
	EditedFile string
	Refresh    checkpoint.Refresher
}

// JudgePostTool annotates only and never blocks: a due checkpoint is a
// verdict.Context whose reason gives the checkpoint's reason and actions
// (the dialect puts it in the client's context field); a clean or
// under-the-limits tree is Allow; any failure to evaluate (git error, ctx
// deadline, no git work tree, no git) is a Skip with the reason.
//
// After a shell command (or any tool that is not an edit) it scans the
// checkout afresh, which also refreshes the cache the pre-edit and stop
// rows read. After an edit of a file the cached status already counts
// (noted by its pre-edit, or changed before), the cached status is exact
// for that edit and is used; any other edit scans.
func JudgePostTool(ctx context.Context, in PostToolInput) verdict.Verdict {
	res, err := postToolStatus(ctx, in)
	switch {
	case unjudgeable(err) != "":
		return verdict.Verdict{Kind: verdict.Skip, Reason: unjudgeable(err)}
	case err != nil:
		return verdict.Verdict{Kind: verdict.Skip, Reason: verdict.Cap("checkpoint could not be evaluated: " + err.Error())}
	case res.Due:
		return verdict.Verdict{Kind: verdict.Context, RuleID: RuleCheckpointDue, Reason: verdict.Cap(
			"hookwarden: a checkpoint is due (" + res.Reason + "). " + res.Actions())}
	}
	return verdict.Verdict{Kind: verdict.Allow}
}

// postToolStatus returns the cached status when in.EditedFile is inside the
// checkout and already in its change set, else a fresh one.
func postToolStatus(ctx context.Context, in PostToolInput) (checkpoint.Result, error) {
	if strings.TrimSpace(in.EditedFile) != "" {
		res, err := evaluate(ctx, in.Cwd, in.RepoRoot, in.Config, false, checkpoint.EvaluateCachedWith(in.Refresh))
		e := EditInput{Cwd: in.Cwd, RepoRoot: in.RepoRoot, FilePath: in.EditedFile}
		if err == nil {
			if rel, inside := relToRoot(e, res.Root); inside && res.InChangeSet(rel) {
				return res, nil
			}
		}
	}
	return evaluate(ctx, in.Cwd, in.RepoRoot, in.Config, false, checkpoint.Evaluate)
}

// EditInput is one pre-edit call (Claude PreToolUse on Edit, MultiEdit,
// Write, NotebookEdit; Gemini BeforeTool on write_file, replace). FilePath
// is the edited file as the payload gives it (Claude tool_input.file_path,
// Gemini's edit tools' file_path), absolute or relative to Cwd. Client,
// Cwd, RepoRoot, Config and Refresh mean what they mean in StopInput.
type EditInput struct {
	Client   string
	Cwd      string
	RepoRoot string
	FilePath string
	Config   checkpoint.Config
	Refresh  checkpoint.Refresher
}

// JudgeEdit lets an edit through unless a checkpoint is due and the edited
// file is outside the checkout judged or outside its current change set
// (the files already changed): then Deny with RuleCheckpointDue and the
// checkpoint's actions. A checkpoint that cannot be evaluated (git error,
// ctx deadline) is a Deny with RuleCheckpointUnavailable; a due checkpoint
// with no FilePath is a Deny with RuleInvalidInput; a cwd outside any git
// work tree, or no git on PATH, is a Skip. The reason never names the edited
// file.
func JudgeEdit(ctx context.Context, in EditInput) verdict.Verdict {
	res, err := evaluate(ctx, in.Cwd, in.RepoRoot, in.Config, false, checkpoint.EvaluateCachedWith(in.Refresh))
	switch {
	case unjudgeable(err) != "":
		return verdict.Verdict{Kind: verdict.Skip, Reason: unjudgeable(err)}
	case err != nil:
		return verdict.Verdict{Kind: verdict.Deny, RuleID: RuleCheckpointUnavailable, Reason: verdict.Cap(
			RuleCheckpointUnavailable + ": the checkpoint could not be evaluated (" + err.Error() +
				"), so edits are held back. Check `git status` and commit finished work, then retry.")}
	case !res.Due:
		noteEdit(in, res)
		return verdict.Verdict{Kind: verdict.Allow}
	}
	if strings.TrimSpace(in.FilePath) == "" {
		return verdict.Verdict{Kind: verdict.Deny, RuleID: RuleInvalidInput, Reason: verdict.Cap(
			RuleInvalidInput + ": the edit names no file path while a checkpoint is due (" + res.Reason + "). " + res.Actions())}
	}
	rel, inside := relToRoot(in, res.Root)
	if !inside {
		return verdict.Verdict{Kind: verdict.Deny, RuleID: RuleCheckpointDue, Reason: verdict.Cap(
			RuleCheckpointDue + ": a checkpoint is due (" + res.Reason + ") and this edit is outside the repository. Commit first. " + res.Actions())}
	}
	if res.InChangeSet(rel) {
		return verdict.Verdict{Kind: verdict.Allow}
	}
	return verdict.Verdict{Kind: verdict.Deny, RuleID: RuleCheckpointDue, Reason: verdict.Cap(
		RuleCheckpointDue + ": a checkpoint is due (" + res.Reason + "); until it is committed, edits are limited to the files already changed, and this file is not one of them. " + res.Actions())}
}

// relToRoot returns the edited file relative to root, and whether it is
// inside root.
func relToRoot(in EditInput, root string) (string, bool) {
	p := in.FilePath
	if !filepath.IsAbs(p) {
		p = filepath.Join(dirOf(in.Cwd, in.RepoRoot), p)
	}
	rel, err := filepath.Rel(root, resolveExisting(filepath.Clean(p)))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// noteEdit records an allowed edit of a file inside the checkout and outside
// its current change set (checkpoint.NoteEdit), so a cached status counts it
// from now on and the agent's own edits can only raise the count.
func noteEdit(in EditInput, res checkpoint.Result) {
	if strings.TrimSpace(in.FilePath) == "" {
		return
	}
	rel, inside := relToRoot(in, res.Root)
	if !inside || res.InChangeSet(rel) {
		return
	}
	checkpoint.NoteEdit(dirOf(in.Cwd, in.RepoRoot), res.Root, rel)
}

// unjudgeable returns the stated-skip reason for an evaluation error the
// agent cannot act on (no git work tree, no git installed), "" otherwise.
func unjudgeable(err error) string {
	switch {
	case errors.Is(err, checkpoint.ErrNotRepository):
		return "checkpoint skipped: the session's directory is not inside a git work tree"
	case errors.Is(err, checkpoint.ErrNoGit):
		return "checkpoint skipped: git is not installed (not found on PATH)"
	}
	return ""
}

// dirOf returns cwd, or root when cwd is empty.
func dirOf(cwd, root string) string {
	if cwd != "" {
		return cwd
	}
	return root
}

// evaluate runs the checkpoint (with eval: checkpoint.Evaluate, a fresh
// status, or checkpoint.EvaluateCachedWith(in.Refresh)) on the directory the input names.
func evaluate(ctx context.Context, cwd, root string, cfg checkpoint.Config, atStop bool,
	eval func(context.Context, string, checkpoint.Config, bool) (checkpoint.Result, error)) (checkpoint.Result, error) {
	dir := dirOf(cwd, root)
	if dir == "" {
		return checkpoint.Result{}, fmt.Errorf("no cwd and no repository root in the payload")
	}
	return eval(ctx, dir, cfg, atStop)
}

// resolveExisting resolves symbolic links in the longest existing prefix of
// p (an absolute, clean path) and appends the rest, so a file about to be
// created compares with the symlink-free root git reports.
func resolveExisting(p string) string {
	rest := ""
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// questionAdvice returns the sentence telling the agent how to ask instead,
// naming the client's question tool:
//   - claude: AskUserQuestion (Claude Code 2.1.328 bundle: sdk-tools.d.ts
//     declares AskUserQuestionInput; bin/claude.exe lists the tool).
//   - codex: request_user_input (codex-cli 0.169.0 offers it in its tool list,
//     ../shared/e2e/README.md section 2; its binary also says
//     "request_user_input is not supported in exec mode", hence "where
//     offered").
//   - gemini: ask_user (Gemini CLI 0.61.0 bundle: ASK_USER_TOOL_NAME =
//     "ask_user", registered as a core tool).
//   - agy: ask_question (no agy binary here; three independent third-party
//     Antigravity tool mappings found with the search tool name it for
//     "pose a structured question to the user").
//
// Any other client gets the advice without a tool name.
func questionAdvice(client string) string {
	const finish = " If you have no question, end with a statement of what you did and what remains."
	switch client {
	case "claude":
		return "Ask it with the AskUserQuestion tool instead of in prose." + finish
	case "codex":
		return "Ask it with the request_user_input tool where your tool list offers it (codex exec does not support it); otherwise state the decision you need and proceed with your best judgement." + finish
	case "gemini":
		return "Ask it with the ask_user tool instead of in prose." + finish
	case "agy":
		return "Ask it with the ask_question tool instead of in prose." + finish
	}
	return "Ask it with your client's question tool if it has one; otherwise state the decision you need as a statement." + finish
}
