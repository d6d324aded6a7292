//! What the sub-agent events do to the transcript: an Agent call's tool
//! cell becomes its sub-agent's cell (joining the group of the agents
//! running beside it), the sub-agent's own events update that cell, and
//! its approvals and denials name it.

use crate::protocol::{Denial, Event, SubAgentInfo, SubAgentRecord, SubAgentStatus};
use crate::protocol::{SubAgentSummary, TurnEnd};
use crate::tui::cells::{AgentCell, AgentGroup, Cell, first_line};
use crate::tui::model::Model;
use std::time::Instant;

/// `SubAgentStarted`: the Agent call's tool cell becomes the agent's cell;
/// next to a group whose agents still run, it joins that group.
pub(super) fn started(model: &mut Model, call_id: String, info: SubAgentInfo) {
    let agent = AgentCell::new(call_id.clone(), info, model.now);
    let at = model
        .cells
        .iter()
        .rposition(|c| matches!(c, Cell::Tool { call_id: id, .. } if *id == call_id));
    let Some(at) = at else {
        // No tool cell to replace: after the last cell.
        let last = model.cells.len().checked_sub(1);
        if let Some(last) = last.filter(|&i| running_group(&model.cells[i])) {
            join(model, last, agent, false);
        } else {
            let expanded = model.tools_expanded;
            model
                .cells
                .push(Cell::Agents(AgentGroup::new(agent, expanded)));
        }
        return;
    };
    let before = at
        .checked_sub(1)
        .filter(|&i| running_group(&model.cells[i]));
    let after = Some(at + 1).filter(|&i| model.cells.get(i).is_some_and(running_group));
    if let Some(group) = before {
        remove(model, at);
        join(model, group, agent, false);
    } else if let Some(group) = after {
        remove(model, at);
        join(model, group - 1, agent, true);
    } else {
        let expanded = model.tools_expanded;
        model.cells[at] = Cell::Agents(AgentGroup::new(agent, expanded));
    }
}

/// Removes cell `i`; a scrolled-up window stays on what it shows.
fn remove(model: &mut Model, i: usize) {
    model.cells.remove(i);
    if let Some(anchor) = model.scroll_anchor.as_mut() {
        anchor.cell_removed(i);
    }
}

/// Whether a sub-agent runs now.
pub(super) fn any_running(model: &Model) -> bool {
    model.cells.iter().rev().any(running_group)
}

/// Whether `cell` is a group with an agent still running: the Agent calls
/// of one reply run at once, a later reply's start a group of their own.
fn running_group(cell: &Cell) -> bool {
    matches!(cell, Cell::Agents(group) if group.running() > 0)
}

/// Adds `agent` to the group at `i`, first or last.
fn join(model: &mut Model, i: usize, agent: AgentCell, first: bool) {
    if let Some(Cell::Agents(group)) = model.cells.get_mut(i) {
        if first {
            group.agents.insert(0, agent);
        } else {
            group.agents.push(agent);
        }
    }
}

/// Changes the agent of `call_id` through `f`, which says whether its
/// collapsed rows changed; an expanded group lays out again either way.
fn with_agent(model: &mut Model, call_id: &str, f: impl FnOnce(&mut AgentCell) -> bool) -> bool {
    let Some(i) = model
        .cells
        .iter()
        .rposition(|c| matches!(c, Cell::Agents(g) if g.holds(call_id)))
    else {
        return false;
    };
    model.cells.edit(i, |cell| match cell {
        Cell::Agents(group) => {
            let expanded = group.expanded;
            group.agent_mut(call_id).is_some_and(f) || expanded
        }
        _ => false,
    });
    true
}

/// The call id of the running agent labelled `label`.
fn running_agent(model: &Model, label: &str) -> Option<String> {
    model.cells.iter().rev().find_map(|c| match c {
        Cell::Agents(group) => group
            .agents
            .iter()
            .find(|a| a.is_running() && a.info.label == label)
            .map(|a| a.call_id.clone()),
        _ => None,
    })
}

/// `SubAgentEvent`: one of the sub-agent's own events.
pub(super) fn inner_event(model: &mut Model, call_id: &str, event: Event) {
    // Nothing of it is the screen's own: its streamed text changes no row
    // of a collapsed cell.
    let shows = !matches!(
        event,
        Event::AssistantDelta { .. } | Event::ReasoningDelta { .. } | Event::ToolOutputDelta { .. }
    );
    model.dirty = shows;
    with_agent(model, call_id, |agent| agent.apply(event));
}

/// `SubAgentFinished`.
pub(super) fn finished(model: &mut Model, call_id: &str, summary: SubAgentSummary) {
    with_agent(model, call_id, |agent| {
        agent.finish(summary);
        true
    });
}

/// The Agent call's own `ToolCallFinished`: what the parent model read.
/// False when `call_id` is no agent's.
pub(super) fn call_finished(
    model: &mut Model,
    call_id: &str,
    output: &str,
    is_error: bool,
) -> bool {
    with_agent(model, call_id, |agent| {
        agent.set_output(output);
        if is_error {
            agent.end_without_summary(SubAgentStatus::Failed, first_line(output));
        } else {
            agent.end_without_summary(SubAgentStatus::Completed, first_line(output));
        }
        true
    })
}

/// A request of the agent labelled `label` waits for the user, or no more.
pub(super) fn set_waiting(model: &mut Model, label: &str, waiting: bool) {
    if let Some(call_id) = running_agent(model, label) {
        with_agent(model, &call_id, |agent| {
            agent.set_waiting(waiting);
            true
        });
    }
}

/// A top-level denial of a sub-agent's call: the agent's transcript shows
/// it; false when no running agent has that label.
pub(super) fn denied(model: &mut Model, label: &str, denial: Denial) -> bool {
    let Some(call_id) = running_agent(model, label) else {
        return false;
    };
    with_agent(model, &call_id, |agent| {
        agent.denied(denial);
        true
    })
}

/// The parent's turn ended: an agent still running was cut off with it.
pub(super) fn turn_finished(model: &mut Model, end: TurnEnd) {
    let why = match end {
        TurnEnd::Interrupted => "interrupted",
        _ => "the turn ended before it did",
    };
    model.cells.update_where(
        |c| matches!(c, Cell::Agents(g) if g.running() > 0),
        |c| {
            if let Cell::Agents(group) = c {
                for agent in &mut group.agents {
                    agent.end_without_summary(SubAgentStatus::Cancelled, why.to_string());
                }
            }
        },
    );
}

/// The clock moved: running agents' elapsed time, laid out again only
/// when the seconds shown change.
pub(super) fn tick(model: &mut Model, now: Instant) {
    let running: Vec<usize> = model
        .cells
        .iter()
        .enumerate()
        .filter(|(_, c)| running_group(c))
        .map(|(i, _)| i)
        .collect();
    for i in running {
        let mut changed = false;
        model.cells.edit(i, |cell| {
            if let Cell::Agents(group) = cell {
                for agent in &mut group.agents {
                    changed |= agent.tick(now);
                }
            }
            changed
        });
        model.dirty |= changed;
    }
}

/// A resumed Agent call whose sub-agent's record was found: a finished
/// agent cell, joining the one replayed just before it.
pub(super) fn replay(model: &mut Model, call_id: String, record: SubAgentRecord, output: &str) {
    let agent = AgentCell::from_record(call_id, record, output);
    if let Some(Cell::Agents(group)) = model.cells.last_mut() {
        group.agents.push(agent);
        return;
    }
    let expanded = model.tools_expanded;
    model
        .cells
        .push(Cell::Agents(AgentGroup::new(agent, expanded)));
}
