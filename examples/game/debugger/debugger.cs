// V12's debugger instance (Console, "ConDebugger"): this program as the script debugger
// of another V12 instance that called dbgSetParameters(port, password) (`v12 -- -dbg 28040
// secret` does). It speaks the telnet debugger protocol over a TCPObject. DebuggerGui
// (debuggerGui.gui, built by client/ui/client.cs) is its screen in the window client (main
// menu: Debugger); the same functions work from the console or a script (`v12 -- -debugger
// 127.0.0.1:28040 secret` attaches at start):
//
//    dbgConnect("127.0.0.1:28040", "secret");
//    dbgSetBreakpoint("server/game.cs", 63);   dbgBreakNext();
//    dbgContinue();   dbgStepIn();   dbgStepOver();   dbgStepOut();
//    dbgEval("%client.name");                   // in the innermost frame
//
// A script may define hooks: onDebuggerConnected(), onDebuggerBreak(%file, %line, %function),
// onDebuggerRunning(), onDebuggerEval(%tag, %value), onDebuggerOutput(%text),
// onDebuggerClosed(%why).

$Debugger::Address = "127.0.0.1:28040";
$Debugger::Status = "not attached";
$Debugger::EvalTag = 0;
$Debugger::OutputLines = 0;

function dbgConnect(%address, %password)
{
   if (isObject(DebuggerLink))
      DebuggerLink.delete();
   new TCPObject(DebuggerLink);
   $Debugger::Password = %password;
   $Debugger::Attached = 0;
   $Debugger::Status = "connecting to " @ %address;
   DebuggerLink.connect(%address);
}

function dbgSend(%line)
{
   if (!$Debugger::Attached)
   {
      debuggerOutput("(not attached) " @ %line);
      return;
   }
   DebuggerLink.send(%line @ "\r\n");
}

function dbgSetBreakpoint(%file, %line, %condition)
{
   if (%condition $= "")
      %condition = "true";
   dbgSend("BRKSET " @ %file SPC %line SPC "0 0" SPC %condition);
}

function dbgClearBreakpoint(%file, %line) { dbgSend("BRKCLR " @ %file SPC %line); }
function dbgBreakNext() { dbgSend("BRKNEXT"); }
function dbgContinue() { dbgSend("CONTINUE"); }
function dbgStepIn() { dbgSend("STEPIN"); }
function dbgStepOver() { dbgSend("STEPOVER"); }
function dbgStepOut() { dbgSend("STEPOUT"); }
function dbgFileList() { dbgSend("FILELIST"); }

// Evaluates %expr in stack frame %frame (0, the innermost, by default); the answer comes
// back through onDebuggerEval and the output list. Returns the request's tag.
function dbgEval(%expr, %frame)
{
   if (%frame $= "")
      %frame = 0;
   $Debugger::EvalTag++;
   dbgSend("EVAL " @ $Debugger::EvalTag SPC %frame SPC %expr);
   return $Debugger::EvalTag;
}

function DebuggerLink::onConnected(%this)
{
   %this.send($Debugger::Password @ "\r\n");
}

function DebuggerLink::onConnectFailed(%this) { debuggerClosed("cannot connect"); }
function DebuggerLink::onDNSFailed(%this) { debuggerClosed("unknown host"); }
function DebuggerLink::onDisconnect(%this) { debuggerClosed("disconnected"); }

function debuggerClosed(%why)
{
   $Debugger::Attached = 0;
   $Debugger::Status = "not attached (" @ %why @ ")";
   debuggerOutput("debugger: " @ %why);
   if (isFunction(onDebuggerClosed))
      onDebuggerClosed(%why);
}

function debuggerOutput(%text)
{
   $Debugger::OutputLines++;
   if (isObject(DebuggerOutputList))
   {
      DebuggerOutputList.addRow($Debugger::OutputLines, %text);
      DebuggerOutputList.setSelectedRow(DebuggerOutputList.rowCount() - 1);
   }
   if (isFunction(onDebuggerOutput))
      onDebuggerOutput(%text);
}

function DebuggerLink::onLine(%this, %line)
{
   %word = getWord(%line, 0);
   %rest = getWords(%line, 1);
   switch$ (%word)
   {
   case "PASS":
      if (%rest $= "Connected.")
      {
         $Debugger::Attached = 1;
         $Debugger::Status = "attached, running";
         if (isFunction(onDebuggerConnected))
            onDebuggerConnected();
      }
      else
      {
         %this.disconnect();
         debuggerClosed("wrong password");
      }
   case "BREAK":
      // A file, line and function for each frame, the innermost first.
      $Debugger::StackCount = mFloor(getWordCount(%rest) / 3);
      if (isObject(DebuggerStackList))
         DebuggerStackList.clear();
      for (%i = 0; %i < $Debugger::StackCount; %i++)
      {
         $Debugger::Stack[%i] = getWords(%rest, %i * 3, %i * 3 + 2);
         if (isObject(DebuggerStackList))
            DebuggerStackList.addRow(%i, getWord(%rest, %i * 3 + 2) @ "  " @ getWord(%rest, %i * 3) @ ":" @
               getWord(%rest, %i * 3 + 1));
      }
      %file = getWord(%rest, 0);
      %at = getWord(%rest, 1);
      %function = getWord(%rest, 2);
      $Debugger::Status = "stopped in " @ %function @ " at " @ %file @ ":" @ %at;
      if (isFunction(onDebuggerBreak))
         onDebuggerBreak(%file, %at, %function);
   case "RUNNING":
      $Debugger::Status = "attached, running";
      if (isObject(DebuggerStackList))
         DebuggerStackList.clear();
      if (isFunction(onDebuggerRunning))
         onDebuggerRunning();
   case "COUT":
      debuggerOutput(%rest);
   case "EVALOUT":
      %tag = getWord(%rest, 0);
      %value = getWords(%rest, 1);
      debuggerOutput("[" @ %tag @ "] = " @ %value);
      if (isFunction(onDebuggerEval))
         onDebuggerEval(%tag, %value);
   case "FILELISTOUT":
      $Debugger::Files = %rest;
      debuggerOutput("files: " @ %rest);
   case "BRKMOV":
      debuggerOutput("breakpoint " @ getWord(%rest, 0) @ ":" @ getWord(%rest, 1) @ " moved to line " @
         getWord(%rest, 2));
   case "BRKCLR":
      debuggerOutput("breakpoint " @ getWord(%rest, 0) @ ":" @ getWord(%rest, 1) @ " has no code: cleared");
   case "DBGERR":
      debuggerOutput("debugger error: " @ %rest);
   }
}

// The screen's buttons.
function DebuggerGui::attach(%this)
{
   dbgConnect($Debugger::Address, $Debugger::PasswordEntry);
}

function DebuggerGui::setBreakpoint(%this)
{
   dbgSetBreakpoint($Debugger::BreakFile, $Debugger::BreakLine);
}

function DebuggerGui::eval(%this)
{
   if ($Debugger::EvalEntry !$= "")
      dbgEval($Debugger::EvalEntry);
}
